package driver

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestFrontends checks the registered descriptors: each extension read by
// one frontend, no backquote in a usage string (pflag would show the quoted
// word as the value's placeholder), and a flag that several frontends
// define of one type on all of them.
func TestFrontends(t *testing.T) {
	exts := map[string]string{}
	types := map[string]string{}
	for _, fe := range Frontends() {
		if fe.Name == "" || len(fe.Exts) == 0 || fe.Bind == nil {
			t.Errorf("frontend %q: want a name, extensions and Bind", fe.Name)
			continue
		}
		for _, e := range fe.Exts {
			if other, dup := exts[e]; dup {
				t.Errorf("%s is read by both %s and %s", e, other, fe.Name)
			}
			exts[e] = fe.Name
		}
		fs := pflag.NewFlagSet(fe.Name, pflag.ContinueOnError)
		if s := fe.Bind(fs); s == nil || s.Parse == nil {
			t.Errorf("%s: Bind returns no parse function", fe.Name)
		}
		fs.VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s: --%s: backquote in usage %q", fe.Name, f.Name, f.Usage)
			}
			if typ, ok := types[f.Name]; ok && typ != f.Value.Type() {
				t.Errorf("--%s is a %s in one frontend and a %s in %s", f.Name, typ, f.Value.Type(), fe.Name)
			}
			types[f.Name] = f.Value.Type()
		})
	}
}

// TestInputFlags checks that a flag given for an input it does not apply
// to is refused, naming the flag and the input kind, and that a bad value
// fails as the flags are parsed.
func TestInputFlags(t *testing.T) {
	for _, tt := range []struct {
		file string
		args []string
		want string
	}{
		{"x.fork", []string{"--capacity=5"}, "--capacity applies to .trs and .rec inputs, not .fork"},
		{"x.kir", []string{"--procs=5"}, "--procs applies to .fork inputs, not .kir"},
		{"x.kir", []string{"--stats"}, "--stats applies to .chr, .pl, .trs and .rec inputs, not .kir"},
		{"x.chr", []string{"--trace=t.csv"}, "--trace applies to .trs and .rec inputs, not .chr"},
		{"x.trs", []string{"--trace=t.csv"}, "--trace applies to gpuc run only"},
		{"x.fork", []string{"--crcw=common"}, `unknown concurrent-write rule "common" (want priority or arbitrary)`},
		{"x.trs", []string{"--print=tree"}, "want term or summary"},
		{"x.txt", nil, `x.txt: unknown file type ".txt" (want .kir, .fork, .chr, .pl, .trs or .rec)`},
	} {
		_, err := Load(tt.file, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%s, %v): error %v, want %q", tt.file, tt.args, err, tt.want)
		}
	}
}
