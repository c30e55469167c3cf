package trs

import "gpuc/ir"

// fn builds the body of one IR function with ir.Builder (Note [IR
// builder]); the rule code moves its Pos to the rule it lowers. The
// methods defined on fn in the lowering files are TRS's own shapes.
type fn struct {
	*ir.Builder
	id    ir.Type // slot ids: i32, or u32 in a world that needs them (Note [Slot words])
	world bool    // the owner-placed world store of Note [TRS on several devices]
}

// param is a function parameter.
type param struct {
	name string
	t    ir.Type
}

// newFunc adds a function to the module and returns its builder.
func (l *lowerer) newFunc(kind ir.FuncKind, name string, result ir.Type, params ...param) *fn {
	var fields []*ir.Field
	for _, p := range params {
		fields = append(fields, &ir.Field{Pos: l.pos, Name: p.name, Type: p.t})
	}
	return &fn{Builder: ir.NewFunc(l.m, l.pos, kind, name, result, fields...), id: l.id, world: l.world}
}
