package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/credentials"
)

// PlaintextRefusal is what a client that speaks plaintext to a TLS port is told.
const PlaintextRefusal = "polgraph speaks TLS on this port: connect with TLS, trusting the CA that signed its certificate (grpcurl -cacert, polgraph --tls-ca)"

// TLSOnly wraps a server's TLS credentials so that a client speaking plaintext to the port is told why
// it is refused rather than seeing the connection close: a gRPC client (HTTP/2 without TLS) gets its first
// call answered UNAVAILABLE with PlaintextRefusal, an HTTP/1 client a 400 saying the same. Connections
// that start with a TLS handshake go to creds untouched.
func TLSOnly(creds credentials.TransportCredentials) credentials.TransportCredentials {
	return tlsOnly{creds}
}

type tlsOnly struct {
	credentials.TransportCredentials
}

func (c tlsOnly) Clone() credentials.TransportCredentials {
	return tlsOnly{c.TransportCredentials.Clone()}
}

func (c tlsOnly) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	first := make([]byte, 1)
	if _, err := io.ReadFull(raw, first); err != nil {
		return nil, nil, err
	}
	if first[0] == 0x16 { // a TLS handshake record
		rc := &replayConn{Conn: raw, first: first, holdClose: true}
		conn, info, err := c.TransportCredentials.ServerHandshake(rc)
		rc.mu.Lock()
		rc.holdClose = false
		rc.mu.Unlock()
		if err != nil {
			// The handshake sent an alert saying why (a client certificate required, say); in TLS 1.3 the
			// client reads it only after it has written its first request. Read that request before
			// closing, so that the close does not reset the connection and lose the alert.
			raw.SetDeadline(time.Now().Add(time.Second))
			io.Copy(io.Discard, io.LimitReader(raw, 64<<10))
			raw.Close()
			return nil, nil, err
		}
		return conn, info, nil
	}
	refusePlaintext(raw, first[0])
	return nil, nil, errors.New("a client spoke plaintext to the TLS port")
}

// replayConn reads the bytes already read from a connection first; while holdClose is set, Close does
// nothing (ServerHandshake closes the connection itself).
type replayConn struct {
	net.Conn
	first []byte

	mu        sync.Mutex
	holdClose bool
}

func (c *replayConn) Close() error {
	c.mu.Lock()
	hold := c.holdClose
	c.mu.Unlock()
	if hold {
		return nil
	}
	return c.Conn.Close()
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.first) > 0 {
		n := copy(p, c.first)
		c.first = c.first[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// refusePlaintext answers a plaintext client, within two seconds, and leaves the connection to be closed.
func refusePlaintext(conn net.Conn, first byte) {
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	// Whatever happens, read what the client still sends before the connection is closed, so that the
	// close does not reset it (and discard the answer) while its bytes are unread.
	defer io.Copy(io.Discard, io.LimitReader(conn, 64<<10))
	preface := make([]byte, len(http2.ClientPreface))
	preface[0] = first
	if _, err := io.ReadFull(conn, preface[1:]); err != nil || string(preface) != http2.ClientPreface {
		body := PlaintextRefusal + "\n"
		conn.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n" +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
		return
	}
	// HTTP/2 without TLS: an empty SETTINGS as the server's preface, then, for the client's first call,
	// a trailers-only gRPC answer (UNAVAILABLE, the message), then GOAWAY.
	out := bufio.NewWriter(conn)
	fr := http2.NewFramer(out, conn)
	fr.SetMaxReadFrameSize(1 << 20)
	if fr.WriteSettings() != nil || out.Flush() != nil {
		return
	}
	for range 32 {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame: // the client's SETTINGS: acknowledge them
			if !f.IsAck() {
				fr.WriteSettingsAck()
				out.Flush()
			}
		case *http2.HeadersFrame: // the first call
			var block bytes.Buffer
			enc := hpack.NewEncoder(&block)
			for _, hf := range []hpack.HeaderField{{Name: ":status", Value: "200"}, {Name: "content-type", Value: "application/grpc"},
				{Name: "grpc-status", Value: "14"}, {Name: "grpc-message", Value: PlaintextRefusal}} {
				enc.WriteField(hf)
			}
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: f.StreamID, BlockFragment: block.Bytes(), EndStream: true, EndHeaders: true})
			fr.WriteGoAway(f.StreamID, http2.ErrCodeInadequateSecurity, []byte(PlaintextRefusal))
			out.Flush()
			return
		}
	}
}
