package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pipe joins the test's ends to the server's stream.
type pipe struct {
	io.Reader
	io.Writer
}

func (pipe) Close() error { return nil }

// session is the client side of a scripted JSON-RPC session.
type session struct {
	t   *testing.T
	w   io.Writer
	r   *bufio.Reader
	ids int
}

func (c *session) send(method string, params any, request bool) int {
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if request {
		c.ids++
		msg["id"] = c.ids
	}
	b, _ := json.Marshal(msg)
	fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return c.ids
}

// next reads the next message from the server.
func (c *session) next() map[string]any {
	c.t.Helper()
	n := 0
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatal(err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		c.t.Fatal(err)
	}
	var msg map[string]any
	if err := json.Unmarshal(buf, &msg); err != nil {
		c.t.Fatal(err)
	}
	return msg
}

// TestSession runs a scripted session: initialize, diagnostics of a
// broken Fork program on open and none after a change that fixes it,
// hover on $ and on a CHR constraint, shutdown and exit.
func TestSession(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		New().Serve(context.Background(), pipe{inR, outW})
		close(done)
	}()
	c := &session{t: t, w: inW, r: bufio.NewReader(outR)}

	c.send("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, true)
	init := c.next()
	caps := init["result"].(map[string]any)["capabilities"].(map[string]any)
	if caps["hoverProvider"] != true {
		t.Errorf("initialize: no hover: %v", caps)
	}
	c.send("initialized", map[string]any{}, false)

	bad := "void main() {\n  start(4) {\n    int x = ;\n  }\n}\n"
	uri := "file:///tmp/p.fork"
	c.send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "fork", "version": 1, "text": bad}}, false)
	d := c.next()
	if d["method"] != "textDocument/publishDiagnostics" {
		t.Fatalf("want diagnostics, got %v", d)
	}
	diags := d["params"].(map[string]any)["diagnostics"].([]any)
	if len(diags) == 0 {
		t.Fatalf("no diagnostics for %q", bad)
	}
	first := diags[0].(map[string]any)
	if line := first["range"].(map[string]any)["start"].(map[string]any)["line"]; line != 2.0 {
		t.Errorf("diagnostic on line %v, want 2 (0-based): %v", line, first["message"])
	}

	good := "sh int a[4];\nvoid main() {\n  start(4) {\n    a[$] = $;\n  }\n}\n"
	c.send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": good}}}, false)
	d = c.next()
	if diags := d["params"].(map[string]any)["diagnostics"].([]any); len(diags) != 0 {
		t.Errorf("diagnostics after the fix: %v", diags)
	}

	c.send("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 3, "character": 6}}, true)
	h := c.next()
	if v := fmt.Sprint(h["result"]); !strings.Contains(v, "rank in its current group") {
		t.Errorf("hover on $: %v", v)
	}

	chr := ":- use_module(library(chr)).\n:- chr_constraint gcd/1.\ngcd(0) <=> true.\n"
	curi := "file:///tmp/g.chr"
	c.send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": curi, "languageId": "chr", "version": 1, "text": chr}}, false)
	c.next() // its diagnostics
	c.send("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": curi}, "position": map[string]any{"line": 2, "character": 1}}, true)
	if v := fmt.Sprint(c.next()["result"]); !strings.Contains(v, "CHR constraint `gcd/1`") {
		t.Errorf("hover on gcd: %v", v)
	}

	c.send("shutdown", nil, true)
	c.next()
	c.send("exit", nil, false)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after exit")
	}
}

// TestCheckReadsBeside checks that a document's diagnostics see the files
// its frontend reads beside it: a .rec without EVAL takes its input term
// from NAME.input, as a .trs file does.
func TestCheckReadsBeside(t *testing.T) {
	src, err := os.ReadFile("../../examples/trs/gcd.rec")
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := strings.Cut(string(src), "EVAL")
	text := spec + "END-SPEC\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "g.rec")
	if errs := Check(path, text); len(errs) != 1 || !strings.Contains(errs[0].Msg, "no input term") {
		t.Fatalf("without g.input: %v, want the missing input term", errs)
	}
	if err := os.WriteFile(filepath.Join(dir, "g.input"), []byte("gcd(s(s(d0)), s(d0))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if errs := Check(path, text); len(errs) != 0 {
		t.Errorf("with g.input: %v", errs)
	}
}
