package fork

// forkDocs are the hover texts of Fork's $, @, keywords and builtins.
var forkDocs = map[string]string{
	"$":         "`$`: the processor's rank in its current group, 0 to groupsize()-1.",
	"@":         "`@`: the current group's id; `fork` gives each new subgroup its own.",
	"groupsize": "`groupsize()`: the number of processors in the current group.",
	"start":     "`start(P) { ... }`: run the block on P processors as one group (a bare `start` uses --procs); the PRAM's synchronous execution.",
	"farm":      "`farm`: run the statement asynchronously on each processor, without the group's synchronisation.",
	"seq":       "`seq S`: run S on one processor of the group (the others wait).",
	"fork":      "`fork(k; @ = e; $ = e) S`: split the group into k subgroups, with new group ids and ranks.",
	"sh":        "`sh`: a shared variable, one for the whole group (in memory every processor sees).",
	"pr":        "`pr`: a private variable, one per processor.",
	"sync":      "`sync`: a function that a whole group calls synchronously.",
	"async":     "`async`: a function that processors call independently.",
	"barrier":   "`barrier`: synchronise the current group.",
	"mpadd":     "`mpadd(&x, v)`: multiprefix add: adds v to x and returns x's value before, resolved in processor order as on the SB-PRAM.",
	"mpmax":     "`mpmax(&x, v)`: multiprefix maximum, resolved in processor order; returns the value before.",
	"mpmin":     "`mpmin(&x, v)`: multiprefix minimum, resolved in processor order; returns the value before.",
	"mpand":     "`mpand(&x, v)`: multiprefix bitwise and, resolved in processor order; returns the value before.",
	"mpor":      "`mpor(&x, v)`: multiprefix bitwise or, resolved in processor order; returns the value before.",
	"printf":    "`printf(fmt, ...)`: print, as C's printf; the output is the program's.",
	"error":     "`error(\"msg\")`: stop the program with `error: msg` and exit status 1.",
}

// hover is the hover text of a word of a Fork program, or "".
func hover(_, word string) string { return forkDocs[word] }
