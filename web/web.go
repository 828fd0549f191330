// Package web is the graph explorer: a single-page app that draws the answers of
// polgraph.v1.GraphService in the browser. Its sources are in src/, its build (esbuild, `make web`) in
// dist/, which is committed and embedded here, so the polgraph binary serves the explorer without Node.js.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"time"
)

//go:embed dist
var dist embed.FS

// contentSecurityPolicy keeps the page to its own scripts and to the API of the server that served it.
// Cytoscape sets inline styles on its canvas, hence 'unsafe-inline' for styles only; exports are data: and
// blob: URLs.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// Assets serves the explorer's files: index.html at / and the bundle beside it. Every file carries an ETag
// (a hash of its content) and must be revalidated, so a new binary's explorer is never mixed with a
// cached old one; unknown paths answer 404.
func Assets() http.Handler {
	files := map[string]asset{}
	root, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embed pattern guarantees dist/ exists
	}
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		files["/"+p] = asset{content: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := path.Clean(r.URL.Path)
		if p == "/" {
			p = "/index.html"
		}
		a, ok := files[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", a.etag)
		http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(a.content))
	})
}

type asset struct {
	content []byte
	etag    string
}
