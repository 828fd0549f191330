package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Options configure the guard in front of the HTTP API.
type Options struct {
	// AllowedHosts are the host names (without port) the server answers to, besides IP addresses, which a
	// DNS rebinding attack cannot use; empty means DefaultAllowedHosts; "*" allows any name (e.g. behind
	// a reverse proxy that checks names itself).
	AllowedHosts []string
	// MaxBody bounds a request body, in bytes (DefaultMaxBody when 0), before and after decompression.
	MaxBody int64
	// OnRefused, when set, hears of every request refused before any handler ran: its HTTP status and a
	// reason (HOST_NOT_ALLOWED, CROSS_ORIGIN, BODY_TOO_LARGE, BODY_UNREADABLE, INFLATES_TOO_LARGE; and
	// HEADERS_TOO_LARGE through CountHeaderRefusals).
	OnRefused func(status int, reason string)
	// HealthDetail, when set, adds its fields to /healthz's answer (the scheduled backups' state).
	HealthDetail func() map[string]any
}

// maxBody is MaxBody, or DefaultMaxBody when it is not set.
func (o Options) maxBody() int64 {
	if o.MaxBody <= 0 {
		return DefaultMaxBody
	}
	return o.MaxBody
}

func (o Options) refused(status int, reason string) {
	if o.OnRefused != nil {
		o.OnRefused(status, reason)
	}
}

// DefaultAllowedHosts are the names a local polgraph answers to.
var DefaultAllowedHosts = []string{"localhost"}

// DefaultMaxBody bounds request bodies: the largest request polgraph reads (1,000 excluded names of 200
// bytes, say) is well under it.
const DefaultMaxBody = 1 << 20

// Guard wraps the HTTP API so that only the page it serves, and clients that are not browsers, can use it:
//
//   - every response carries security headers (no sniffing, no framing, no referrer, same-origin
//     resources, and a Content-Security-Policy that allows nothing unless the page's own replaces it);
//   - a request whose Host is a name not in AllowedHosts is refused (403): a page on another site whose
//     name was made to resolve to 127.0.0.1 (DNS rebinding) cannot reach the API;
//   - a request that a browser sends from another origin (its Origin, or its Sec-Fetch-Site, says so) is
//     refused (403), whatever its method or content type, except plain navigations to the page; no CORS
//     header is ever sent, so a preflight fails too;
//   - a body over MaxBody is refused (413) before the API reads it.
//
// Refusals are Connect errors: JSON with a code and a message.
func Guard(next http.Handler, opts Options) http.Handler {
	hosts := opts.AllowedHosts
	if len(hosts) == 0 {
		hosts = DefaultAllowedHosts
	}
	anyHost := slices.Contains(hosts, "*")
	maxBody := opts.maxBody()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")

		host := hostname(r.Host)
		if !anyHost && net.ParseIP(host) == nil && !slices.Contains(hosts, host) {
			opts.refused(http.StatusForbidden, "HOST_NOT_ALLOWED")
			refuse(w, http.StatusForbidden, "permission_denied",
				fmt.Sprintf("polgraph does not answer to the host name %q (allowed: %s, and IP addresses; see --http-allowed-hosts)", truncate(host, 100), strings.Join(hosts, ", ")))
			return
		}
		if crossOrigin(r) {
			opts.refused(http.StatusForbidden, "CROSS_ORIGIN")
			refuse(w, http.StatusForbidden, "permission_denied",
				"polgraph's API answers only the page it serves and clients that are not browsers: this request comes from another origin")
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			if r.ContentLength > maxBody {
				opts.refused(http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE")
				refuse(w, http.StatusRequestEntityTooLarge, "resource_exhausted",
					fmt.Sprintf("the request body is %d bytes; at most %d", r.ContentLength, maxBody))
				return
			}
			// Read the whole body here, bounded, so that the API never sees more than maxBody bytes and a
			// body that trickles in is cut by the server's read timeout before any work starts.
			body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
			if err != nil {
				opts.refused(http.StatusBadRequest, "BODY_UNREADABLE")
				refuse(w, http.StatusBadRequest, "invalid_argument", "cannot read the request body: "+err.Error())
				return
			}
			if int64(len(body)) > maxBody {
				opts.refused(http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE")
				refuse(w, http.StatusRequestEntityTooLarge, "resource_exhausted",
					fmt.Sprintf("the request body is over %d bytes", maxBody))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		next.ServeHTTP(w, r)
	})
}

// crossOrigin reports whether a browser sent r from a page of another origin. Plain navigations (a link
// or a typed address leading to the page) are not cross-origin requests to the API and pass.
func crossOrigin(r *http.Request) bool {
	navigation := (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.Header.Get("Sec-Fetch-Mode") == "navigate"
	if navigation {
		return false
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default: // same-site (another port of the same host counts), cross-site
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false // not sent by a browser, or a same-origin GET
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// hostname is the host of a Host header, without port or brackets, in lower case.
func hostname(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// refuse answers a Connect error.
func refuse(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"code": code, "message": message})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Timeouts bound how long the HTTP server waits for a request and takes over an answer.
type Timeouts struct {
	ReadHeader time.Duration // for the request line and headers
	Read       time.Duration // for the whole request, body included: a body trickled in is cut off
	Write      time.Duration // for the answer, from the end of the request's headers
	Idle       time.Duration // between requests on a kept-alive connection
}

// DefaultTimeouts give a request 15 s to arrive whole and an answer the query timeout and some.
func DefaultTimeouts(queryTimeout time.Duration) Timeouts {
	return Timeouts{ReadHeader: 5 * time.Second, Read: 15 * time.Second, Write: queryTimeout + 15*time.Second, Idle: 2 * time.Minute}
}

// Server is an HTTP server for h with these timeouts and a bound on header size.
func Server(h http.Handler, t Timeouts, log *slog.Logger) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write,
		IdleTimeout: t.Idle, MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
}

// CountHeaderRefusals wraps the HTTP listener so that onRefused hears of each request net/http itself
// refuses for headers over the server's MaxHeaderBytes (431), which no handler sees: it writes that
// answer straight onto the connection, and this listener's connections watch for it.
func CountHeaderRefusals(lis net.Listener, onRefused func(status int, reason string)) net.Listener {
	if onRefused == nil {
		return lis
	}
	return headerCounter{lis, onRefused}
}

type headerCounter struct {
	net.Listener
	hook func(int, string)
}

func (l headerCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &headerCountingConn{Conn: c, hook: l.hook}, nil
}

type headerCountingConn struct {
	net.Conn
	hook func(int, string)
}

// tooLarge431 starts net/http's answer to headers over the limit (HTTP/1.x; HTTP/2 has its own frame
// limits).
var tooLarge431 = []byte("HTTP/1.1 431 ")

func (c *headerCountingConn) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, tooLarge431) {
		c.hook(http.StatusRequestHeaderFieldsTooLarge, "HEADERS_TOO_LARGE")
	}
	return c.Conn.Write(p)
}
