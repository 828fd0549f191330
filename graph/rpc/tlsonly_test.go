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
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
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

// TestTLSOnlyAnswersHTTP2Frames speaks HTTP/2 without TLS frame by frame: the server's preface, an
// acknowledgement of the client's SETTINGS, a trailers-only UNAVAILABLE answer to the first call, then a
// GOAWAY saying INADEQUATE_SECURITY.
func TestTLSOnlyAnswersHTTP2Frames(t *testing.T) {
	t.Parallel()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close() })
	go func() {
		refusePlaintext(server, http2.ClientPreface[0])
		server.Close()
	}()
	client.SetDeadline(time.Now().Add(5 * time.Second))
	fr := http2.NewFramer(client, client)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	go func() {
		// net.Pipe is synchronous: write while the frames are read below.
		io.WriteString(client, http2.ClientPreface[1:])
		fr.WriteSettings()
		var block bytes.Buffer
		enc := hpack.NewEncoder(&block)
		for _, f := range []hpack.HeaderField{{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
			{Name: ":path", Value: "/polgraph.v1.GraphService/GetEntity"}, {Name: ":authority", Value: "polgraph"}} {
			enc.WriteField(f)
		}
		fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true})
	}()

	var got []string
	for done := false; !done; {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			got = append(got, fmt.Sprintf("SETTINGS ack=%t", f.IsAck()))
		case *http2.MetaHeadersFrame:
			line := fmt.Sprintf("HEADERS stream=%d end_stream=%t", f.StreamID, f.StreamEnded())
			for _, hf := range f.Fields {
				line += " " + hf.Name + "=" + hf.Value
			}
			got = append(got, line)
		case *http2.GoAwayFrame:
			done = true
			got = append(got, fmt.Sprintf("GOAWAY last=%d %v %s", f.LastStreamID, f.ErrCode, f.DebugData()))
		default:
			got = append(got, f.Header().Type.String())
		}
	}
	want := []string{
		"SETTINGS ack=false",
		"SETTINGS ack=true",
		"HEADERS stream=1 end_stream=true :status=200 content-type=application/grpc grpc-status=14 grpc-message=" + PlaintextRefusal,
		"GOAWAY last=1 INADEQUATE_SECURITY " + PlaintextRefusal,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames from the server (-want +got):\n%s", diff)
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
