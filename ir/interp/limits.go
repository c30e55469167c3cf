package interp

import "fmt"

// check refuses configuration values that have no meaning, rather than
// reading them as their defaults: a negative count is a mistake.
func (c Config) check() error {
	switch {
	case c.Workers < 0:
		return fmt.Errorf("--workers=%d: want a number of goroutines, 0 for one a core", c.Workers)
	case c.CoopThreads < 0:
		return fmt.Errorf("--coop-threads=%d: want a number of threads, 0 for the default", c.CoopThreads)
	case c.DeviceMemory < 0:
		return fmt.Errorf("--device-memory=%d: want a number of bytes, 0 for the default", c.DeviceMemory)
	}
	return nil
}
