package passes

import "gpuc/ir"

// distributeWorldPass makes any SPMD program one for a world of DEVICES
// devices that means what it meant on one (ir.DistributeWorld, Note
// [World] in package ir): `gpuc run --passes distribute-world --devices
// K x.chr` runs a CHR program so, and Fork's --world does the same.
var distributeWorldPass = &Pass{
	Name: "distribute-world",
	Doc:  "make every region world and every written global buffer distributed (DEVICES devices)",
	From: ir.SPMDLevel, To: ir.SPMDLevel,
	Run: func(m *ir.Module, cfg *Config) error {
		if err := ir.DistributeWorld(m); err != nil {
			return err
		}
		return nil
	},
}
