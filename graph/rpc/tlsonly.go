package rpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

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

// http2Preface is what an HTTP/2 client sends first.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// refusePlaintext answers a plaintext client, within two seconds, and leaves the connection to be closed.
func refusePlaintext(conn net.Conn, first byte) {
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	// Whatever happens, read what the client still sends before the connection is closed, so that the
	// close does not reset it (and discard the answer) while its bytes are unread.
	defer io.Copy(io.Discard, io.LimitReader(conn, 64<<10))
	preface := make([]byte, len(http2Preface))
	preface[0] = first
	if _, err := io.ReadFull(conn, preface[1:]); err != nil || string(preface) != http2Preface {
		body := PlaintextRefusal + "\n"
		conn.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n" +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
		return
	}
	// HTTP/2 without TLS: an empty SETTINGS as the server's preface, then, for the client's first call,
	// a trailers-only gRPC answer (UNAVAILABLE, the message), then GOAWAY.
	if _, err := conn.Write(h2Frame(0x4, 0, 0, nil)); err != nil {
		return
	}
	header := make([]byte, 9)
	for range 32 {
		if _, err := io.ReadFull(conn, header); err != nil {
			return
		}
		length := int(header[0])<<16 | int(header[1])<<8 | int(header[2])
		typ, flags := header[3], header[4]
		stream := binary.BigEndian.Uint32(header[5:]) & 0x7fffffff
		if length > 1<<20 {
			return
		}
		if _, err := io.CopyN(io.Discard, conn, int64(length)); err != nil {
			return
		}
		switch {
		case typ == 0x4 && flags&0x1 == 0: // the client's SETTINGS: acknowledge them
			conn.Write(h2Frame(0x4, 0x1, 0, nil))
		case typ == 0x1 && stream != 0: // HEADERS: the first call
			var block bytes.Buffer
			for _, f := range [][2]string{{":status", "200"}, {"content-type", "application/grpc"},
				{"grpc-status", "14"}, {"grpc-message", PlaintextRefusal}} {
				hpackLiteral(&block, f[0], f[1])
			}
			goaway := binary.BigEndian.AppendUint32(nil, stream)
			goaway = binary.BigEndian.AppendUint32(goaway, 0xc) // INADEQUATE_SECURITY
			goaway = append(goaway, PlaintextRefusal...)
			conn.Write(append(h2Frame(0x1, 0x5, stream, block.Bytes()), h2Frame(0x7, 0, 0, goaway)...)) // END_STREAM|END_HEADERS
			return
		}
	}
}

// h2Frame encodes an HTTP/2 frame.
func h2Frame(typ, flags byte, stream uint32, payload []byte) []byte {
	n := len(payload)
	out := []byte{byte(n >> 16), byte(n >> 8), byte(n), typ, flags}
	out = binary.BigEndian.AppendUint32(out, stream)
	return append(out, payload...)
}

// hpackLiteral encodes a header field as an HPACK literal without indexing, with a new name, and neither
// string Huffman-coded (RFC 7541, 6.2.2).
func hpackLiteral(b *bytes.Buffer, name, value string) {
	b.WriteByte(0)
	for _, s := range []string{name, value} {
		hpackInt(b, len(s))
		b.WriteString(s)
	}
}

// hpackInt encodes a string length: a 7-bit prefix, then 7 bits a byte (RFC 7541, 5.1).
func hpackInt(b *bytes.Buffer, n int) {
	if n < 127 {
		b.WriteByte(byte(n))
		return
	}
	b.WriteByte(127)
	for n -= 127; n >= 128; n >>= 7 {
		b.WriteByte(byte(n%128 + 128))
	}
	b.WriteByte(byte(n))
}
