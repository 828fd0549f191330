package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAssets(t *testing.T) {
	t.Parallel()
	h := Assets()
	get := func(method, path string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	tests := []struct {
		name, method, path string
		code               int
		contentType        string
	}{
		{"the page at the root", "GET", "/", 200, "text/html"},
		{"the page by name", "GET", "/index.html", 200, "text/html"},
		{"the bundle", "GET", "/explorer.js", 200, "text/javascript"},
		{"the stylesheet", "GET", "/explorer-style.css", 200, "text/css"},
		{"an unknown file", "GET", "/secret.txt", 404, ""},
		{"a path out of the folder", "GET", "/../web.go", 404, ""},
		{"a write", "POST", "/", 405, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(tc.method, tc.path)
			if rec.Code != tc.code {
				t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, rec.Code, tc.code)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, tc.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tc.contentType)
			}
			if tc.code == 200 && rec.Header().Get("Content-Security-Policy") == "" {
				t.Error("no Content-Security-Policy")
			}
		})
	}
	first := get("GET", "/explorer.js")
	etag := first.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if again := get("GET", "/explorer.js", "If-None-Match", etag); again.Code != http.StatusNotModified {
		t.Errorf("revalidation with the ETag: %d, want 304", again.Code)
	}
	if page := get("GET", "/").Body.String(); !strings.Contains(page, `<script type="module" src="explorer.js">`) {
		t.Errorf("the page does not load the bundle:\n%s", page)
	}
}
