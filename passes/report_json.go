package passes

import (
	"encoding/json"
	"io"
	"sort"
)

// ReportFact is one fact of a Report in its JSON form
// (docs/TOOLKIT.md): where the construct is, which pass, what it did.
type ReportFact struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Pass string `json:"pass"`
	Msg  string `json:"message"`
}

// WriteJSON prints the report as one JSON array of ReportFact, sorted by
// source position as Write sorts it.
func (r *Report) WriteJSON(w io.Writer) error {
	es := append([]reportEntry(nil), r.entries...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].pos.Before(es[j].pos) })
	facts := []ReportFact{}
	for _, e := range es {
		facts = append(facts, ReportFact{File: e.pos.File, Line: e.pos.Line, Col: e.pos.Col, Pass: e.pass, Msg: e.msg})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(facts)
}
