package httpapi

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"

	"connectrpc.com/connect"
)

// boundedGzip is the gzip decompressor of the HTTP API: it refuses to inflate a message past limit bytes,
// counting while it inflates, so that a small compressed body that inflates to gigabytes (a
// decompression bomb) costs no more memory or time than a plain body at the limit. Vanguard decompresses
// every encoded message of the Connect and gRPC-Web protocols through it (Content-Encoding,
// Connect-Content-Encoding, grpc-encoding, and a GET's compression parameter) before any handler, and
// any interceptor, runs.
type boundedGzip struct {
	gz    gzip.Reader
	limit int64
	hook  func(int, string)
	read  int64
	ready bool
}

// errInflatesPastLimit is what a body that inflates past the limit fails with; onRefused hears it.
var errInflatesPastLimit = errors.New("inflates past the limit")

func newBoundedGzip(limit int64, onRefused func(int, string)) func() connect.Decompressor {
	return func() connect.Decompressor { return &boundedGzip{limit: limit, hook: onRefused} }
}

func (d *boundedGzip) Reset(r io.Reader) error {
	d.read, d.ready = 0, false
	if err := d.gz.Reset(r); err != nil {
		return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("the request body is not gzip: %w", err))
	}
	d.ready = true
	return nil
}

func (d *boundedGzip) Read(p []byte) (int, error) {
	if !d.ready {
		return 0, io.ErrUnexpectedEOF
	}
	if d.read >= d.limit {
		// One byte more tells a message that ends at the limit from one that goes past it.
		var one [1]byte
		if n, err := d.gz.Read(one[:]); n == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return 0, err
		}
		if d.hook != nil {
			d.hook(http.StatusTooManyRequests, "INFLATES_TOO_LARGE")
		}
		return 0, connect.NewError(connect.CodeResourceExhausted,
			fmt.Errorf("the request body %w: it inflates to over %d bytes; at most %d", errInflatesPastLimit, d.limit, d.limit))
	}
	if rest := d.limit - d.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := d.gz.Read(p)
	d.read += int64(n)
	return n, err
}

func (d *boundedGzip) Close() error {
	if !d.ready {
		return nil
	}
	return d.gz.Close()
}
