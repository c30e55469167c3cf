package passes

import "gpuc/internal/enum"

// GridSync is how regions with grid barriers run (Config.GridSync, Note
// [Grid sync]); "" means GridSyncAuto.
type GridSync string

const (
	// GridSyncAuto launches a region cooperatively where the device holds
	// it, with relaunches as the fallback.
	GridSyncAuto GridSync = "auto"
	// GridSyncAlways launches regions only cooperatively.
	GridSyncAlways GridSync = "always"
	// GridSyncNever runs grid barriers as kernel relaunches.
	GridSyncNever GridSync = "never"
)

func (g GridSync) String() string { return string(g) }

// Type names the flag's value in help.
func (GridSync) Type() string { return "mode" }

// Set parses a mode, as a flag's value.
func (g *GridSync) Set(s string) error {
	if err := enum.Check(s, string(GridSyncAuto), string(GridSyncAlways), string(GridSyncNever)); err != nil {
		return err
	}
	*g = GridSync(s)
	return nil
}

// Placement is where partial-eval holds static data (Config.PEPlacement,
// Note [Placement of static data]); "" means PlaceAuto.
type Placement string

const (
	PlaceAuto     Placement = "auto"
	PlaceCode     Placement = "code"
	PlaceConstant Placement = "constant"
	PlaceGlobal   Placement = "global"
)

// placements lists the placements in the order messages name them.
var placements = []string{string(PlaceAuto), string(PlaceCode), string(PlaceConstant), string(PlaceGlobal)}

func (p Placement) String() string { return string(p) }

// Type names the flag's value in help.
func (Placement) Type() string { return "placement" }

// Set parses a placement, as a flag's value.
func (p *Placement) Set(s string) error {
	if err := enum.Check(s, placements...); err != nil {
		return err
	}
	*p = Placement(s)
	return nil
}
