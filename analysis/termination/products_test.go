package termination

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gpuc/analysis/its"
	"gpuc/analysis/smt"
)

// TestProductObligations: the copy of counter-product.its with the product as a variable keeps it
// equal to the product on every transition (the certificate's obligations hold under z3 and
// cvc5), and a copy whose stride is wrong (p*GAP stepped by GAP alone) fails its obligation.
func TestProductObligations(t *testing.T) {
	src, err := os.ReadFile("testdata/its/counter-product.its")
	if err != nil {
		t.Fatal(err)
	}
	sys, err := its.Parse(string(src), "counter-product.its")
	if err != nil {
		t.Fatal(err)
	}
	red, defs := reduceProducts(sys)
	if red == nil || len(defs) != 2 {
		t.Fatalf("no products found (%v)", defs)
	}
	if got := red.Trans[1].Guard[0].String(); !strings.Contains(got, "p*GAP") || strings.Contains(got, "p * GAP") {
		t.Errorf("the loop's guard reads %s, want the product variable", got)
	}
	bad := *red
	bad.Trans = append([]its.Transition(nil), red.Trans...)
	loop := bad.Trans[1]
	loop.Update = map[string]its.Expr{}
	for k, e := range red.Trans[1].Update {
		loop.Update[k] = e
	}
	q, _ := red.Var("p*GAP")
	g, _ := red.Var("GAP")
	loop.Update["p*GAP"] = its.B(its.Add, its.R(q), its.R(g))
	bad.Trans[1] = loop
	for _, solver := range []string{"z3", "cvc5"} {
		if _, err := exec.LookPath(solver); err != nil {
			t.Logf("%s is not installed", solver)
			continue
		}
		for _, c := range []struct {
			sys  *its.System
			want smt.Result
		}{{red, smt.Unsat}, {&bad, smt.Sat}} {
			obl := productObligations(c.sys, defs)
			var script strings.Builder
			for _, o := range obl {
				script.WriteString("(push 1)\n" + o.Script + "(check-sat)\n(pop 1)\n")
			}
			res, err := smt.Run(solver, script.String(), 30*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(obl) {
				t.Fatalf("%s: %d answers for %d obligations", solver, len(res), len(obl))
			}
			if c.want == smt.Unsat {
				for i, r := range res {
					if r != smt.Unsat {
						t.Errorf("%s: %s: %v, want unsat", solver, obl[i].What, r)
					}
				}
			} else if res[1] != smt.Sat {
				t.Errorf("%s: the wrong stride's obligation answers %v, want sat", solver, res[1])
			}
		}
	}
}
