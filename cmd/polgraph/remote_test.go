package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/internal/dgraphlocal"
)

// testPKI writes a CA, a certificate for 127.0.0.1 signed by it and a client certificate, as PEM files in
// dir.
func testPKI(t *testing.T, dir string) (ca, cert, key, clientCert, clientKey string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "polgraph test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	write := func(name, kind string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage) (string, string) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := x509.MarshalECPrivateKey(k)
		return write(name+".crt", "CERTIFICATE", der), write(name+".key", "EC PRIVATE KEY", kb)
	}
	ca = write("ca.crt", "CERTIFICATE", caDER)
	cert, key = leaf(2, "node", x509.ExtKeyUsageServerAuth)
	clientCert, clientKey = leaf(3, "client.polgraph", x509.ExtKeyUsageClientAuth)
	return
}

// lineWriter collects what a command prints, for a test to wait for a line.
type lineWriter struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestServeOnARemoteDgraphWithACLAndTLS runs `polgraph load` and `polgraph serve` against a Dgraph that
// speaks only TLS, asks for client certificates and has ACL on, with the credentials given as a
// remote Dgraph's operator would give them: flags naming files, and the environment.
func TestServeOnARemoteDgraphWithACLAndTLS(t *testing.T) {
	if os.Getenv("POLGRAPH_TEST_ALPHA") != "" {
		t.Skip("needs a Dgraph of its own; POLGRAPH_TEST_ALPHA is set")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pki := t.TempDir()
	ca, cert, key, clientCert, clientKey := testPKI(t, pki)
	dir := t.TempDir()
	cfg := dgraphlocal.Config{Binary: dgraphlocal.DefaultBinary(), DataDir: dir, Logger: slog.New(slog.DiscardHandler),
		TLS: &dgraphlocal.TLSFiles{CA: ca, Cert: cert, Key: key, RequireClientCert: true, ClientCert: clientCert, ClientKey: clientKey}}
	c, cfg, err := dgraphlocal.StartOnFreePorts(ctx, cfg, 1200+os.Getpid()%100*7)
	if err != nil {
		alphaLog, _ := os.ReadFile(filepath.Join(dir, "logs", "alpha.log"))
		var lines []string
		for _, l := range strings.Split(string(alphaLog), "\n") {
			if strings.Contains(strings.ToLower(l), "tls") || strings.Contains(l, "health") || strings.HasPrefix(l, "E") {
				lines = append(lines, l)
			}
		}
		t.Fatalf("%v\nalpha.log:\n%s", err, strings.Join(lines[:min(len(lines), 40)], "\n"))
	}
	defer c.Stop()
	svc := c.Service()
	secrets := t.TempDir()
	pwFile, tokenFile := filepath.Join(secrets, "password"), filepath.Join(secrets, "token")
	os.WriteFile(pwFile, []byte(svc.Password+"\n"), 0o600)
	os.WriteFile(tokenFile, []byte(svc.AuthToken+"\n"), 0o600)
	nowhere := t.TempDir() // no local secrets to fall back on
	remote := []string{"--dgraph", cfg.AlphaAddr(), "--data-dir", nowhere, "--dgraph-user", dgraphlocal.ServiceUser,
		"--dgraph-password-file", pwFile, "--dgraph-auth-token-file", tokenFile,
		"--dgraph-tls-ca", ca, "--dgraph-tls-cert", clientCert, "--dgraph-tls-key", clientKey}

	var out strings.Builder
	if err := realMain(ctx, append(append([]string{"load"}, remote...), defaultDataset), &out, io.Discard); err != nil {
		t.Fatalf("load over TLS with ACL: %v", err)
	}
	if !strings.Contains(out.String(), "114 relations") {
		t.Errorf("load said: %s", out.String())
	}

	t.Run("what is missing or wrong is named", func(t *testing.T) {
		without := func(flags ...string) []string {
			var args []string
			for i := 0; i < len(remote); i += 2 {
				if !slices.Contains(flags, remote[i]) {
					args = append(args, remote[i], remote[i+1])
				}
			}
			return args
		}
		otherCA, _, _, _, _ := testPKI(t, t.TempDir())
		badPW := filepath.Join(secrets, "bad")
		os.WriteFile(badPW, []byte("wrong\n"), 0o600)
		loose := filepath.Join(secrets, "loose")
		os.WriteFile(loose, []byte(svc.Password+"\n"), 0o644)
		for _, tt := range []struct {
			name string
			args []string
			says string
		}{
			{"no CA", without("--dgraph-tls-ca"), "certificate"},
			{"another CA", append(without("--dgraph-tls-ca"), "--dgraph-tls-ca", otherCA), "certificate"},
			{"no client certificate", without("--dgraph-tls-cert", "--dgraph-tls-key"), "Dgraph"},
			{"no TLS", without("--dgraph-tls-ca", "--dgraph-tls-cert", "--dgraph-tls-key"), "Dgraph"},
			{"a wrong password", append(without("--dgraph-password-file"), "--dgraph-password-file", badPW), "refused polgraph's login"},
			{"no admin token", without("--dgraph-auth-token-file"), "refused polgraph's login"},
			{"a password file others can read", append(without("--dgraph-password-file"), "--dgraph-password-file", loose), "chmod 600"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				err := realMain(ctx, append([]string{"load"}, append(tt.args, defaultDataset)...), io.Discard, io.Discard)
				if err == nil || !strings.Contains(err.Error(), tt.says) {
					t.Errorf("got %v, want an error saying %q", err, tt.says)
				}
			})
		}
	})

	// serve, with the password in the environment instead of a file.
	t.Setenv("POLGRAPH_DGRAPH_PASSWORD", svc.Password)
	var args []string
	for i := 0; i < len(remote); i += 2 {
		if remote[i] != "--dgraph-password-file" {
			args = append(args, remote[i], remote[i+1])
		}
	}
	printed := &lineWriter{}
	served := make(chan error, 1)
	sctx, stop := context.WithCancel(ctx)
	go func() {
		served <- realMain(sctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--http", ""}, args...), printed, io.Discard)
	}()
	serving := regexp.MustCompile(`serving on (\S+);`)
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; {
		if m := serving.FindStringSubmatch(printed.String()); m != nil {
			addr = m[1]
		}
		select {
		case err := <-served:
			t.Fatalf("serve ended: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not start in 30 s")
		}
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := pb.NewGraphServiceClient(conn).FindPaths(ctx, &pb.FindPathsRequest{From: "Ajmal Masroor", To: "Keir Starmer", MaxPaths: 1})
	if err != nil || len(resp.GetPaths()) != 1 {
		t.Fatalf("FindPaths through serve on the remote Dgraph: %v %v", resp, err)
	}
	stop()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
}
