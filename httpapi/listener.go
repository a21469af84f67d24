package httpapi

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/todoaudit/todo/problem"
)

// Listener wraps ln so that the requests net/http refuses before any handler
// sees them (a malformed percent-escape in the path, a bad header line, an
// unknown transfer coding) are answered as problem+json like every other
// error, instead of net/http's plain text.
func Listener(ln net.Listener) net.Listener { return problemListener{ln} }

type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return problemConn{c}, nil
}

// problemConn rewrites net/http's own error answers. The server writes each
// of them in one Write straight to the connection, as a status line followed
// by exactly these headers (no Date, unlike every handler's answer), and
// then closes the connection.
type problemConn struct{ net.Conn }

var plainErrorHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

func (c problemConn) Write(b []byte) (int, error) {
	if p, ok := serverError(b); ok {
		if _, err := c.Conn.Write(p); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// serverError returns the problem+json answer replacing b, when b is one of
// net/http's plain-text error answers.
func serverError(b []byte) ([]byte, bool) {
	const prefix = "HTTP/1.1 "
	if !bytes.HasPrefix(b, []byte(prefix)) || len(b) < len(prefix)+3 {
		return nil, false
	}
	status, err := strconv.Atoi(string(b[len(prefix) : len(prefix)+3]))
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	eol := bytes.IndexByte(b, '\r')
	if eol < 0 || !bytes.HasPrefix(b[eol:], plainErrorHeaders) {
		return nil, false
	}
	detail := "the request is malformed (an invalid percent-escape in the path, a bad header or request line)"
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		detail = "the request headers are too large"
	case http.StatusNotImplemented:
		detail = "the request uses a transfer coding this server does not support"
	case http.StatusHTTPVersionNotSupported:
		detail = "the request uses an HTTP version this server does not support"
	}
	body := problem.JSON(problem.Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail})
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		status, http.StatusText(status), len(body), body), true
}
