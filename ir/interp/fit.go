package interp

import (
	"gpuc/internal/diag"
	"gpuc/ir"
)

// fitParams gives each fitted parameter that the configuration does not
// set its value, in declaration order; those not yet fitted count as 1
// (Note [Fitted parameters] in package ir).
func (x *machine) fitParams() error {
	var fits []*ir.Param
	for _, p := range x.mod.Params {
		if _, set := x.cfg.Params[p.Name]; !set && p.Fit > 0 && p.Type.IsInt() {
			fits = append(fits, p)
			x.params[p.Name] = ir.IntBits(p.Type, 1)
		}
	}
	free := x.cfg.DeviceMemory
	if free <= 0 {
		free = DefaultDeviceMemory
	}
	for _, p := range fits {
		v := ir.FitValue(ir.FitBound(p), ir.FitBudget(p.Fit, uint64(free)), func(v int64) uint64 {
			x.params[p.Name] = ir.IntBits(p.Type, v)
			return x.deviceBytes()
		})
		x.params[p.Name] = ir.IntBits(p.Type, v)
	}
	return nil
}

// deviceBytes is the size of one device's buffers with the parameters'
// current values: of a distributed buffer, the part one device holds. A
// length that cannot be evaluated counts as zero here; allocate reports
// it.
func (x *machine) deviceBytes() uint64 {
	var total uint64
	var errs diag.List
	for _, b := range x.mod.Buffers {
		if b.Space == ir.Shared {
			continue
		}
		n := x.length(b.Len, b.Pos, "buffer "+b.Name, &errs)
		if b.Space == ir.Distributed {
			n = min(n, ir.WorldPart(n, int64(x.devices)))
		}
		total = ir.AddBytes(total, n, b.Elem.Size())
	}
	return total
}
