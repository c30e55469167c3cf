package ir

import "gpuc/internal/diag"

// The world of devices (Note [World] in doc.go): its size, how it splits
// processors and elements, and the one transformation that makes a
// module use it.

// WorldGrain is the unit in which a world region's processors and a
// distributed buffer's elements are split across devices, and the block
// size of the launches that world regions lower to (Note [World]).
const WorldGrain = 256

// WorldPart is how many of n processors or elements each of k devices
// holds: ceil(n/k) rounded up to a multiple of WorldGrain. Device d holds
// those from d*WorldPart(n, k); the last devices may hold fewer or none.
func WorldPart(n, k int64) int64 {
	if k <= 1 {
		return max(n, 1)
	}
	g := (n + k*WorldGrain - 1) / (k * WorldGrain)
	return max(g, 1) * WorldGrain
}

// DevicesParam is the name of the parameter that sets the number of
// devices of a module's world (Note [World]).
const DevicesParam = "DEVICES"

// DistributeWorld makes m a program for a world of DEVICES devices that
// means what m means on one: every region and launch becomes world (a
// launch's blocks run once in the world, not once per device), and
// every global buffer that is not static becomes distributed, one
// storage for the world, so that processors on different devices share
// it as on one device. It declares the DEVICES parameter (default 1)
// unless m has it; another declaration of that name is an error.
// Accesses that cross devices are remote: correct, not yet fast.
func DistributeWorld(m *Module) *diag.Error {
	if p := m.Param(DevicesParam); p == nil {
		if DeclaredNames(m)[DevicesParam] {
			return diag.Errorf(m.Pos, "%s names something else; the world's size needs the name", DevicesParam)
		}
		m.Params = append([]*Param{{Pos: m.Pos, Name: DevicesParam, Type: I32, Default: 1}}, m.Params...)
	}
	for _, b := range m.Buffers {
		if b != nil && b.Space == Global && b.Role != Static {
			b.Space = Distributed
		}
	}
	for _, f := range m.Funcs {
		if f != nil && f.Kind == HostFunc {
			WalkStmts(f.Body, func(s Stmt) bool {
				switch s := s.(type) {
				case *Region:
					s.World = true
				case *Launch:
					s.World = true
				}
				return true
			})
		}
	}
	return nil
}
