package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/polgraph/polgraph/graph/rpc"
)

// grpcurlRun runs grpcurl with args and returns what it printed, and its error.
func grpcurlRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(findGrpcurl(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// httpsClient trusts the CA in caFile and, when given, presents a client certificate.
func httpsClient(t *testing.T, caFile, certFile, keyFile string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{RootCAs: x509.NewCertPool()}
	cfg.RootCAs.AppendCertsFromPEM(pem)
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
}

// TestServeOverTLS runs `polgraph serve` with TLS and client certificates verified when given, and calls
// it with grpcurl as the README shows, with the CLI, with a plaintext client, and over HTTPS.
func TestServeOverTLS(t *testing.T) {
	ca, cert, key, clientCert, clientKey := testPKI(t, t.TempDir())
	otherCA, _, _, _, _ := testPKI(t, t.TempDir())
	p := startServedProcess(t, "--tls-cert", cert, "--tls-key", key, "--tls-client-ca", ca, "--tls-client-roles", "client.polgraph=editor")
	if !strings.HasPrefix(p.httpBase, "https://") {
		t.Fatalf("the explorer is at %s; want https://", p.httpBase)
	}
	apiKey, _ := makeKey(t, uniqueName("tls-reader"), "reader")

	t.Run("grpcurl as the README shows", func(t *testing.T) {
		cmd, want := readmeExample(t, "grpcurl -cacert ")
		args := shellWords(t, strings.NewReplacer("ca.crt", ca, "client.crt", clientCert, "client.key", clientKey,
			"pgk_…", apiKey, "127.0.0.1:50051", p.grpcAddr).Replace(cmd))
		out, err := grpcurlRun(t, args[1:]...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
		if err := matchOutput(want, out); err != nil {
			t.Errorf("the output differs from the document's: %v\n%s", err, out)
		}
	})
	t.Run("grpcurl without a client certificate", func(t *testing.T) {
		out, err := grpcurlRun(t, "-cacert", ca, p.grpcAddr, "list")
		if err != nil || !strings.Contains(out, "polgraph.v1.GraphService") {
			t.Errorf("list over TLS: %v\n%s", err, out)
		}
		out, err = grpcurlRun(t, "-cacert", ca, "-H", "authorization: Bearer "+apiKey, p.grpcAddr, "polgraph.v1.GraphService/GetGraphStats")
		if err != nil || !strings.Contains(out, `"entitiesByKind"`) {
			t.Errorf("a read with a key over TLS: %v\n%s", err, out)
		}
	})
	t.Run("a plaintext client", func(t *testing.T) {
		out, err := grpcurlRun(t, "-plaintext", "-connect-timeout", "5", p.grpcAddr, "list")
		t.Logf("grpcurl -plaintext says:\n%s", out)
		if err == nil || !strings.Contains(out, "Unavailable desc = "+rpc.PlaintextRefusal) {
			t.Errorf("grpcurl -plaintext against TLS: %v\n%s\nwant UNAVAILABLE saying %q", err, out, rpc.PlaintextRefusal)
		}
		var cli bytes.Buffer
		err = realMain(context.Background(), []string{"stats", "--server", p.grpcAddr, "--timeout", "5s"}, &cli, &cli)
		t.Logf("polgraph stats without --tls-ca says: %v", err)
		if err == nil || !strings.Contains(err.Error(), "cannot reach polgraph at "+p.grpcAddr) || !strings.Contains(err.Error(), rpc.PlaintextRefusal) {
			t.Errorf("the CLI without --tls-ca: %v; want it to say it cannot reach polgraph and to suggest --tls-ca", err)
		}
	})
	t.Run("a CA that did not sign the certificate", func(t *testing.T) {
		out, err := grpcurlRun(t, "-cacert", otherCA, "-connect-timeout", "5", p.grpcAddr, "list")
		if err == nil || !strings.Contains(out, "certificate") {
			t.Errorf("another CA: %v\n%s", err, out)
		}
	})
	t.Run("the CLI over TLS", func(t *testing.T) {
		var out bytes.Buffer
		if err := realMain(context.Background(), []string{"stats", "--server", p.grpcAddr, "--tls-ca", ca, "--api-key", apiKey}, &out, &out); err != nil {
			t.Errorf("polgraph stats --tls-ca --api-key: %v\n%s", err, out.String())
		}
		out.Reset()
		if err := realMain(context.Background(), []string{"stats", "--server", p.grpcAddr, "--tls-ca", ca, "--tls-cert", clientCert, "--tls-key", clientKey}, &out, &out); err != nil {
			t.Errorf("polgraph stats with a client certificate: %v\n%s", err, out.String())
		}
	})
	t.Run("the explorer over HTTPS", func(t *testing.T) {
		c := httpsClient(t, ca, "", "")
		resp, err := c.Get(p.httpBase + "/")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "<html") {
			t.Errorf("GET / over HTTPS: %s", resp.Status)
		}
		post := func(origin string) int {
			req, _ := http.NewRequest(http.MethodPost, p.httpBase+"/polgraph.v1.GraphService/GetGraphStats", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Connect-Protocol-Version", "1")
			if origin != "" {
				req.Header.Set("Origin", origin)
				req.Header.Set("Sec-Fetch-Site", "same-origin")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		// The page calls its own origin, which is now https://host:port: the guard's same-origin test holds.
		if code := post(p.httpBase); code != http.StatusOK {
			t.Errorf("a call from the page's own origin over HTTPS: %d", code)
		}
		if code := post(""); code != http.StatusOK {
			t.Errorf("a call from a client that is not a browser: %d", code)
		}
		if code := post("https://attacker.example"); code != http.StatusForbidden {
			t.Errorf("a call from another origin: %d, want 403", code)
		}
		if code := post(strings.Replace(p.httpBase, "127.0.0.1", "localhost", 1)); code != http.StatusForbidden {
			t.Errorf("a call from another origin (localhost for 127.0.0.1): %d, want 403", code)
		}
		// And plain HTTP/1 to the gRPC port.
		resp, err = http.Get("http://" + p.grpcAddr + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), rpc.PlaintextRefusal) {
			t.Errorf("plain HTTP to the gRPC port: %s %s", resp.Status, body)
		}
		resp, err = http.Get("http://" + strings.TrimPrefix(p.httpBase, "https://") + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTP request to an HTTPS server") {
			t.Errorf("plain HTTP to the HTTPS port: %s %s", resp.Status, body)
		}
	})
}

// TestMutualTLSRequired serves with --tls-require-client-cert: a client without a certificate is refused
// at the handshake, over gRPC and HTTPS; with one, it is answered.
func TestMutualTLSRequired(t *testing.T) {
	ca, cert, key, clientCert, clientKey := testPKI(t, t.TempDir())
	p := startServedProcess(t, "--tls-cert", cert, "--tls-key", key, "--tls-client-ca", ca, "--tls-require-client-cert")
	out, err := grpcurlRun(t, "-cacert", ca, "-connect-timeout", "5", p.grpcAddr, "list")
	t.Logf("grpcurl without a client certificate says:\n%s", out)
	if err == nil {
		t.Errorf("no client certificate, yet answered:\n%s", out)
	}
	var cli bytes.Buffer
	err = realMain(context.Background(), []string{"stats", "--server", p.grpcAddr, "--tls-ca", ca, "--timeout", "5s"}, &cli, &cli)
	if err == nil || !strings.Contains(err.Error(), "certificate required") {
		t.Errorf("the CLI without a client certificate: %v; want it to say a certificate is required", err)
	}
	out, err = grpcurlRun(t, "-cacert", ca, "-cert", clientCert, "-key", clientKey, p.grpcAddr, "polgraph.v1.GraphService/GetGraphStats")
	if err != nil || !strings.Contains(out, `"entitiesByKind"`) {
		t.Errorf("with a client certificate: %v\n%s", err, out)
	}
	if _, err := httpsClient(t, ca, "", "").Get(p.httpBase + "/healthz"); err == nil {
		t.Error("HTTPS without a client certificate was answered")
	}
	resp, err := httpsClient(t, ca, clientCert, clientKey).Get(p.httpBase + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("HTTPS with a client certificate: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestClientCertificateRoles gives the test client certificate (CN client.polgraph) a role and calls the
// write API's methods (unimplemented, behind serve's checks) with it, over gRPC and HTTPS.
func TestClientCertificateRoles(t *testing.T) {
	ca, cert, key, clientCert, clientKey := testPKI(t, t.TempDir())
	serveRoles := func(roles string) (string, string) {
		cfg := defaultConfig()
		args := []string{"--tls-cert", cert, "--tls-key", key, "--tls-client-ca", ca}
		if roles != "" {
			args = append(args, "--tls-client-roles", roles)
		}
		if err := cfg.flags("serve", io.Discard, "addr").Parse(args); err != nil {
			t.Fatal(err)
		}
		return writeServer(t, cfg)
	}
	dial := func(addr string, withCert bool) *grpc.ClientConn {
		pem, _ := os.ReadFile(ca)
		cfg := &tls.Config{RootCAs: x509.NewCertPool()}
		cfg.RootCAs.AppendCertsFromPEM(pem)
		if withCert {
			pair, _ := tls.LoadX509KeyPair(clientCert, clientKey)
			cfg.Certificates = []tls.Certificate{pair}
		}
		c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	ctx := context.Background()
	call := func(c *grpc.ClientConn, ctx context.Context, method string) error {
		return c.Invoke(ctx, method, &emptypb.Empty{}, &emptypb.Empty{})
	}
	reader, _ := makeKey(t, uniqueName("cert-reader"), "reader")

	editorAddr, editorWeb := serveRoles("client.polgraph=editor")
	withCert, without := dial(editorAddr, true), dial(editorAddr, false)
	for _, tc := range []struct {
		name   string
		conn   *grpc.ClientConn
		ctx    context.Context
		method string
		code   codes.Code
		says   string
	}{
		{"the editor certificate writes", withCert, ctx, upsertEntities, codes.Unimplemented, ""},
		{"the editor certificate deletes an entity", withCert, ctx, deleteEntity, codes.PermissionDenied, "needs the admin role; certificate CN=client.polgraph has the editor role"},
		{"no certificate", without, ctx, upsertEntities, codes.Unauthenticated, "needs an API key"},
		{"a reader's key with the certificate: the key decides", withCert, withKey(ctx, reader), upsertEntities, codes.PermissionDenied, "has the reader role"},
	} {
		err := call(tc.conn, tc.ctx, tc.method)
		if status.Code(err) != tc.code || !strings.Contains(status.Convert(err).Message(), tc.says) {
			t.Errorf("%s: %v; want %v saying %q", tc.name, err, tc.code, tc.says)
		}
	}

	// Over HTTPS, Vanguard hands the verified certificate on to the same checks.
	post := func(c *http.Client) int {
		req, _ := http.NewRequest(http.MethodPost, editorWeb+upsertEntities, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Connect-Protocol-Version", "1")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(httpsClient(t, ca, clientCert, clientKey)); code != http.StatusNotImplemented {
		t.Errorf("a Connect write with the editor certificate: %d, want 501 (past the checks)", code)
	}
	if code := post(httpsClient(t, ca, "", "")); code != http.StatusUnauthorized {
		t.Errorf("a Connect write without a certificate: %d, want 401", code)
	}

	noRoleAddr, _ := serveRoles("someone.else=admin")
	err := call(dial(noRoleAddr, true), ctx, upsertEntities)
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(status.Convert(err).Message(), "certificate CN=client.polgraph has no role") {
		t.Errorf("a certificate given no role: %v", err)
	}

	// Settings that cannot work together are refused before anything starts.
	for _, bad := range [][]string{
		{"--tls-cert", cert},
		{"--tls-client-ca", ca},
		{"--tls-cert", cert, "--tls-key", key, "--tls-require-client-cert"},
		{"--tls-cert", cert, "--tls-key", key, "--tls-client-roles", "a=editor"},
		{"--tls-cert", cert, "--tls-key", clientKey},
		{"--write-rate", "-1"},
	} {
		cfg := defaultConfig()
		if err := cfg.flags("serve", io.Discard, "addr").Parse(bad); err != nil {
			t.Fatal(err)
		}
		if err := cfg.Auth.check(); err == nil {
			t.Errorf("%v was taken", bad)
		}
	}
}

// readmeExample returns the command of docs/access.md that starts with prefix (in a block of any kind)
// and the output block shown after it.
func readmeExample(t *testing.T, prefix string) (string, []string) {
	t.Helper()
	b, err := os.ReadFile("../../docs/access.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		j++ // the command's block ends; the output block starts
		if j >= len(lines) || strings.TrimSpace(lines[j]) != "```" {
			t.Fatalf("no output block after %q", l)
		}
		var want []string
		for j++; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			want = append(want, lines[j])
		}
		return l, want
	}
	t.Fatalf("docs/access.md has no command starting %q", prefix)
	return "", nil
}
