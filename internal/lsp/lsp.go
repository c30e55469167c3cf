// Package lsp is gpuc's language server (`gpuc lsp`): diagnostics for
// .fork, .chr, .trs, .rec and .kir files on open and on change, and
// hover on Fork's $, @, keywords and builtins and on CHR constraints. It
// speaks LSP over a stream with github.com/tliron/glsp's protocol types
// and handler, and checks a document as `gpuc compile` reads it (package
// driver): the diagnostics are the compiler's own. It is not an editor
// integration; editors/vscode holds one.
package lsp

import (
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"gpuc/internal/diag"
	"gpuc/internal/driver"
)

// Server holds the open documents.
type Server struct {
	mu      sync.Mutex
	docs    map[string]string // URI -> text
	handler protocol.Handler
}

// New makes a server.
func New() *Server {
	s := &Server{docs: map[string]string{}}
	s.handler = protocol.Handler{
		Initialize: func(*glsp.Context, *protocol.InitializeParams) (any, error) {
			caps := s.handler.CreateServerCapabilities()
			caps.TextDocumentSync = protocol.TextDocumentSyncKindFull
			caps.HoverProvider = true
			name, version := "gpuc", "1"
			return protocol.InitializeResult{Capabilities: caps, ServerInfo: &protocol.InitializeResultServerInfo{Name: name, Version: &version}}, nil
		},
		Initialized: func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:    func(*glsp.Context) error { return nil },
		Exit:        func(*glsp.Context) error { return nil },
		SetTrace:    func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidOpen: func(ctx *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
			s.set(p.TextDocument.URI, p.TextDocument.Text)
			s.publish(ctx, p.TextDocument.URI, p.TextDocument.Text)
			return nil
		},
		TextDocumentDidChange: func(ctx *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
			text, ok := s.text(p.TextDocument.URI)
			for _, c := range p.ContentChanges {
				if whole, isWhole := c.(protocol.TextDocumentContentChangeEventWhole); isWhole {
					text, ok = whole.Text, true
				}
			}
			if ok {
				s.set(p.TextDocument.URI, text)
				s.publish(ctx, p.TextDocument.URI, text)
			}
			return nil
		},
		TextDocumentDidClose: func(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
			s.mu.Lock()
			delete(s.docs, p.TextDocument.URI)
			s.mu.Unlock()
			ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
			return nil
		},
		TextDocumentHover: func(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
			text, ok := s.text(p.TextDocument.URI)
			if !ok {
				return nil, nil
			}
			doc := Hover(filepath.Ext(uriPath(p.TextDocument.URI)), text, int(p.Position.Line), int(p.Position.Character))
			if doc == "" {
				return nil, nil
			}
			return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}}, nil
		},
	}
	return s
}

func (s *Server) set(uri, text string) {
	s.mu.Lock()
	s.docs[uri] = text
	s.mu.Unlock()
}

func (s *Server) text(uri string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.docs[uri]
	return t, ok
}

// Serve answers LSP over rwc until the client closes it or sends exit.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) {
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(rwc, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(s.handle))
	<-conn.DisconnectNotify()
}

// handle adapts a JSON-RPC request to glsp's handler, as glsp's own
// server does.
func (s *Server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	gctx := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) { _ = conn.Notify(ctx, method, params) },
		Call:   func(method string, params, result any) { _ = conn.Call(ctx, method, params, result) },
	}
	if req.Params != nil {
		gctx.Params = *req.Params
	}
	r, validMethod, validParams, err := s.handler.Handle(gctx)
	switch {
	case req.Method == "exit":
		return nil, conn.Close()
	case !validMethod:
		if req.Notif {
			return nil, nil // notifications the server does not know are ignored
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		msg := "invalid params"
		if err != nil {
			msg = err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: err.Error()}
	}
	return r, nil
}

// publish sends a document's diagnostics.
func (s *Server) publish(ctx *glsp.Context, uri, text string) {
	ds := []protocol.Diagnostic{}
	for _, d := range Check(uriPath(uri), text) {
		sev := protocol.DiagnosticSeverityError
		src := "gpuc"
		line, col := max(d.Pos.Line-1, 0), max(d.Pos.Col-1, 0)
		ds = append(ds, protocol.Diagnostic{
			Range: protocol.Range{
				Start: protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col)},
				End:   protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col + 1)},
			},
			Severity: &sev, Source: &src, Message: d.Msg,
		})
	}
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: ds})
}

// uriPath is the file path of a file: URI, or the URI itself.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return u.Path
}

// Check reads text as the file at path would be read by gpuc compile and
// returns its diagnostics, positioned in that file. The text goes to a
// temporary copy (the driver reads files), with the TRS input term beside
// it where the real file has one.
func Check(path, text string) []*diag.Error {
	dir, err := os.MkdirTemp("", "gpuc-lsp")
	if err != nil {
		return []*diag.Error{{Pos: diag.Pos{File: path}, Msg: err.Error()}}
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return []*diag.Error{{Pos: diag.Pos{File: path}, Msg: err.Error()}}
	}
	for _, beside := range driver.Beside(path) {
		if b, err := os.ReadFile(beside); err == nil {
			_ = os.WriteFile(filepath.Join(dir, filepath.Base(beside)), b, 0o644)
		}
	}
	_, err = driver.Load(tmp)
	if err == nil {
		return nil
	}
	var list diag.List
	var one *diag.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = diag.List{one}
	default:
		msg := strings.ReplaceAll(err.Error(), tmp, path)
		return []*diag.Error{{Pos: diag.Pos{File: path}, Msg: strings.TrimPrefix(msg, path+": ")}}
	}
	var out []*diag.Error
	for _, d := range list {
		d := *d
		if d.Pos.File == tmp || d.Pos.File == "" {
			d.Pos.File = path
		}
		d.Msg = strings.ReplaceAll(d.Msg, tmp, path)
		out = append(out, &d)
	}
	return out
}

// wordAt returns the word (or the one-character $ or @) at a 0-based
// line and UTF-16 character, which for gpuc's ASCII sources is a byte.
func wordAt(text string, line, char int) string {
	lines := strings.Split(text, "\n")
	if line < 0 || line >= len(lines) {
		return ""
	}
	l := lines[line]
	if char < 0 || char > len(l) {
		return ""
	}
	if char < len(l) && (l[char] == '$' || l[char] == '@') {
		return l[char : char+1]
	}
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	start, end := char, char
	for start > 0 && isWord(l[start-1]) {
		start--
	}
	for end < len(l) && isWord(l[end]) {
		end++
	}
	return l[start:end]
}

// Hover returns the hover text for the word at line and char of a
// document with extension ext, or "": its frontend's (Frontend.Hover).
func Hover(ext, text string, line, char int) string {
	w := wordAt(text, line, char)
	if w == "" {
		return ""
	}
	return driver.Hover(ext, text, w)
}
