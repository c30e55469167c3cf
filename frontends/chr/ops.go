package chr

import (
	"slices"
	"strconv"

	"gpuc/frontends/chr/parser"
	"gpuc/frontends/syntax"
	"gpuc/internal/diag"
)

// Note [User operators]
// ~~~~~~~~~~~~~~~~~~~~~
// Prolog programs declare operators with op/3 and use them in rules, as
// the CHR book's union-find does: `:- op(700, xfx, '~>').` and then
// `A ~> B \ find(A,X) <=> find(B,X).` The grammar's operators are fixed,
// so before parsing the frontend reads the op/3 directives off the token
// stream, in file order, and retypes every later use of a declared word
// in infix position (after a token that ends a term, before one that
// starts one, and not a functor followed at once by its arguments) as the
// grammar's USEROP token of its priority. grammars/CHR.g4 puts USEROP200,
// 400, 500 and 700 beside the system operators of those priorities, and
// USEROP600 between 500 and 700, so the term parses as SWI-Prolog reads
// it and the word becomes its functor: '~>'(A, B). A --query file sees
// the program's operators.
//
// Only infix operators whose associativity the grammar's level gives are
// read: xfx or xfy at 200 (a right-associative level), xfx or yfx at 400
// to 700 (left-associative levels); the term builder refuses an xfx
// operator whose operand is an unparenthesised term of its own priority,
// as in A ~> B ~> C. Other priorities and types, prefix
// and postfix operators, and new meanings for the grammar's own operators
// get a positioned error that says what is read.
//
// The same pass retypes a '(' after layout as OPEN, which the grammar
// reads as a parenthesis and never as an argument list, as Prolog does:
// `:- chr_constraint (~>)/2.` declares ~>/2.

// opLevels maps the priorities read to their token types.
var opLevels = map[int64]int{
	200: parser.CHRParserUSEROP200, 400: parser.CHRParserUSEROP400, 500: parser.CHRParserUSEROP500,
	600: parser.CHRParserUSEROP600, 700: parser.CHRParserUSEROP700,
}

// opTable maps an operator's name, unquoted, to its USEROP token type
// and whether it is xfx, which does not associate.
type opTable map[string]userOp

type userOp struct {
	level int
	xfx   bool
}

// userOperators reads the op/3 directives of a filled token stream into
// ops and retypes the uses of the operators declared (Note [User
// operators]).
func userOperators(file string, stream syntax.Stream, ops opTable, errs *diag.List) {
	toks := stream.GetAllTokens()
	text := func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return toks[i].GetText()
	}
	typ := func(i int) int {
		if i < 0 || i >= len(toks) {
			return syntax.EOF
		}
		return toks[i].GetTokenType()
	}
	for i := 0; i < len(toks); i++ {
		if (text(i) == ":-" || text(i) == "?-") && (i == 0 || typ(i-1) == parser.CHRParserEND) &&
			text(i+1) == "op" && text(i+2) == "(" && typ(i+3) == parser.CHRParserINT && text(i+4) == "," &&
			typ(i+5) == parser.CHRParserNAME && text(i+6) == "," {
			name := i + 7 // op(P, T, Name) or op(P, T, (Name))
			if text(name) == "(" && text(name+2) == ")" {
				name++
			}
			if end := name + 1 + name - i - 7; text(end) == ")" && typ(end+1) == parser.CHRParserEND {
				declareOp(file, toks[i+3], toks[i+5], toks[name], ops, errs)
				i = end + 1
				continue
			}
		}
		switch typ(i) {
		case parser.CHRParserNAME, parser.CHRParserQUOTED, parser.CHRParserSYMBOL:
		default:
			if text(i) == "(" && (i == 0 || toks[i].GetStart() != toks[i-1].GetStop()+1) {
				toks[i] = syntax.Retype(toks[i], parser.CHRParserOPEN)
			}
			continue
		}
		op, ok := ops[atomName(text(i))]
		if !ok || !endsTerm(typ(i-1), text(i-1)) || !startsTerm(typ(i+1), text(i+1)) ||
			text(i+1) == "(" && toks[i+1].GetStart() == toks[i].GetStop()+1 {
			continue
		}
		toks[i] = syntax.Retype(toks[i], op.level)
	}
}

// declareOp reads op(P, T, Name) into ops, or says why gpuc does not.
func declareOp(file string, prio, kind, name syntax.Token, ops opTable, errs *diag.List) {
	n := atomName(name.GetText())
	p, _ := strconv.ParseInt(prio.GetText(), 10, 64)
	t := kind.GetText()
	switch typ := name.GetTokenType(); {
	case typ != parser.CHRParserNAME && typ != parser.CHRParserQUOTED && typ != parser.CHRParserSYMBOL:
		errs.Add(syntax.Pos(file, name), "op/3 gives %s, one of the operators gpuc's grammar fixes, a new meaning, which gpuc does not read", n)
	case p == 0:
		delete(ops, n) // priority 0 removes the operator
	case opLevels[p] == 0 || !(p == 200 && (t == "xfx" || t == "xfy") || p > 200 && (t == "xfx" || t == "yfx")):
		errs.Add(syntax.Pos(file, prio), "operator %s (%d, %s) is outside what gpuc reads: infix operators of type xfx or yfx at priority 400, 500, 600 or 700, or xfx or xfy at 200", n, p, t)
	default:
		ops[n] = userOp{level: opLevels[p], xfx: t == "xfx"}
	}
}

// endsTerm reports whether a token can end a term, so that a word after
// it stands in infix position.
func endsTerm(typ int, text string) bool {
	switch typ {
	case parser.CHRParserVAR, parser.CHRParserINT, parser.CHRParserFLOAT, parser.CHRParserNAME,
		parser.CHRParserQUOTED, parser.CHRParserSTRING:
		return true
	}
	return slices.Contains([]string{")", "]", "}", "!"}, text)
}

// startsTerm reports whether a token can start a term.
func startsTerm(typ int, text string) bool {
	switch typ {
	case parser.CHRParserVAR, parser.CHRParserINT, parser.CHRParserFLOAT, parser.CHRParserNAME,
		parser.CHRParserQUOTED, parser.CHRParserSTRING:
		return true
	}
	return slices.Contains([]string{"(", "[", "{", "-", "+", "\\", "\\+", "!"}, text)
}
