// Package webapp serves the web page: the built files embedded from
// static/ (made by make web from web/), and the page's configuration,
// under a strict Content-Security-Policy. Every file but index.html has a
// content hash in its name and is cached for a year; the page itself and
// its configuration are revalidated on every load.
package webapp

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var static embed.FS

// Files are the built page's files, index.html and the hashed assets.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // static is embedded: it is always there
	}
	return sub
}

// Config is what the page needs to know about the handler: how users sign
// in, and under entra where and as whom.
type Config struct {
	// AuthMode is dev, single, easyauth or entra.
	AuthMode string `json:"authMode"`
	// User is the one user under single.
	User string `json:"user,omitempty"`
	// AdminUsers are the admins under dev, whose page shows the admin
	// entries.
	AdminUsers []string `json:"adminUsers,omitempty"`
	// Authority, ClientID and Scope are entra's OpenID provider, the
	// page's application id and the scope of the access token it asks for.
	Authority string `json:"authority,omitempty"`
	ClientID  string `json:"clientId,omitempty"`
	Scope     string `json:"scope,omitempty"`
}

// Function is the HTTP function (functions/WebApp) through which the
// Functions host forwards the page's paths to the handler.
const Function = "WebApp"

// The paths of the page and of its configuration.
const (
	PagePath   = "/"
	ConfigPath = "/config.json"
	indexFile  = "index.html"
)

// The Cache-Control values: hashed files never change under their name;
// the page and its configuration are checked every time.
const (
	immutable = "public, max-age=31536000, immutable"
	noCache   = "no-cache"
)

// file is one answer, ready to send: its body plain and gzipped.
type file struct {
	body, gzipped []byte
	contentType   string
	cacheControl  string
	etag          string
}

// handler serves the page's files and passes every other request on.
type handler struct {
	files map[string]*file // by path
	csp   string
	next  http.Handler
}

// Handler serves GET and HEAD of the page at /, its configuration at
// /config.json and its hashed files at /<name>; every other request goes
// to next.
func Handler(c Config, next http.Handler) http.Handler {
	h := &handler{files: map[string]*file{}, csp: policy(c.AuthMode, c.Authority), next: next}
	err := fs.WalkDir(Files(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(Files(), name)
		if err != nil {
			return err
		}
		p, cache := "/"+name, immutable
		if name == indexFile {
			p, cache = PagePath, noCache
		}
		h.files[p] = newFile(body, mime.TypeByExtension(path.Ext(name)), cache)
		return nil
	})
	if err != nil {
		panic(err) // static is embedded: reading it cannot fail
	}
	cfg, err := json.Marshal(c)
	if err != nil {
		panic(err) // strings only
	}
	h.files[ConfigPath] = newFile(append(cfg, '\n'), "application/json", noCache)
	return h
}

func newFile(body []byte, contentType, cacheControl string) *file {
	sum := sha256.Sum256(body)
	return &file{
		body:         body,
		gzipped:      Gzip(body),
		contentType:  contentType,
		cacheControl: cacheControl,
		etag:         `W/"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`,
	}
}

// Gzip compresses b as the page's files are sent: at the best
// compression, once, when the handler is made.
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		panic(err) // a valid level
	}
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// policy is the Content-Security-Policy of every answer: this origin only,
// no inline script or eval; under entra the page also talks to its OpenID
// provider (discovery, token endpoint).
func policy(mode, authority string) string {
	connect := "'self'"
	if mode == "entra" {
		if u, err := url.Parse(authority); err == nil && u.Scheme != "" && u.Host != "" {
			connect += " " + u.Scheme + "://" + u.Host
		}
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src " + connect +
		"; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := h.files[r.URL.Path]
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		h.next.ServeHTTP(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.contentType)
	hd.Set("Cache-Control", f.cacheControl)
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("ETag", f.etag)
	hd.Set("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		body = f.gzipped
		hd.Set("Content-Encoding", "gzip")
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// acceptsGzip reports whether an Accept-Encoding value lists gzip without
// refusing it (q=0).
func acceptsGzip(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
