package passes

import "fmt"

// check refuses configuration values that have no meaning, rather than
// reading them as their defaults: a negative budget is a mistake.
func (c *Config) check() error {
	if c.PEBudget < 0 {
		return fmt.Errorf("--pe-budget=%d: want a number of statements, 0 for the default", c.PEBudget)
	}
	return nil
}
