package rpc

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// selfSigned is a certificate for 127.0.0.1, and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "polgraph"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

func TestTLSOnlyTellsPlaintextClientsWhy(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	srv := grpc.NewServer(grpc.Creds(TLSOnly(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))))
	srv.RegisterService(fakeService("polgraph.v1.GraphService", []string{"GetEntity"}, nil), struct{}{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	addr := lis.Addr().String()
	call := func(creds credentials.TransportCredentials) error {
		c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return c.Invoke(ctx, "/polgraph.v1.GraphService/GetEntity", &emptypb.Empty{}, &wrapperspb.StringValue{})
	}

	if err := call(credentials.NewTLS(&tls.Config{RootCAs: pool})); err != nil {
		t.Errorf("a TLS client: %v", err)
	}
	for range 3 { // each time, on a new connection
		err := call(insecure.NewCredentials())
		if status.Code(err) != codes.Unavailable || status.Convert(err).Message() != PlaintextRefusal {
			t.Errorf("a plaintext gRPC client: %v; want UNAVAILABLE: %s", err, PlaintextRefusal)
		}
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || strings.TrimSpace(string(body)) != PlaintextRefusal {
		t.Errorf("an HTTP/1 client: %s %q", resp.Status, body)
	}
	// A client that sends a few bytes and goes away costs nothing, and TLS clients are still served.
	for _, junk := range []string{"x", "PRI * HTTP/2.0\r\n", strings.Repeat("\x00", 100)} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(junk))
		c.Close()
	}
	if err := call(credentials.NewTLS(&tls.Config{RootCAs: pool})); err != nil {
		t.Errorf("a TLS client after junk: %v", err)
	}
}

func TestHPACKInt(t *testing.T) {
	t.Parallel()
	// RFC 7541, C.1: 10 and 1337 with a 5-bit prefix; here a 7-bit one, so 1337 = 127 + 1210.
	for n, want := range map[int][]byte{0: {0}, 126: {126}, 127: {127, 0}, 128: {127, 1}, 1337: {127, 0xba, 0x09}} {
		var b bytes.Buffer
		hpackInt(&b, n)
		if got := b.Bytes(); !bytes.Equal(got, want) {
			t.Errorf("hpackInt(%d) = %x, want %x", n, got, want)
		}
	}
}

// TestTLSOnlyLetsTheAlertThrough requires client certificates: a client without one learns why from the
// handshake's alert, every time, rather than seeing the connection reset.
func TestTLSOnlyLetsTheAlertThrough(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	srv := grpc.NewServer(grpc.Creds(TLSOnly(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert},
		ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}))))
	srv.RegisterService(fakeService("polgraph.v1.GraphService", []string{"GetEntity"}, nil), struct{}{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	for i := range 10 {
		c, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool})))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = c.Invoke(ctx, "/polgraph.v1.GraphService/GetEntity", &emptypb.Empty{}, &wrapperspb.StringValue{})
		cancel()
		c.Close()
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "certificate required") {
			t.Fatalf("attempt %d without a client certificate: %v; want UNAVAILABLE saying a certificate is required", i+1, err)
		}
	}
}
