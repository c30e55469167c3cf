// TRS.g4: term rewrite systems, in two notations. frontends/trs checks
// the parse tree and lowers it into gpuc's kernel IR.
//
// The paper's notation (van Eerd et al., "Term Rewriting on GPUs",
// Listing 7) declares sorts with their function symbols, typed variables,
// equations and the input term:
//
//   sort Nat = struct Zero() | S(Nat);
//   var X : Nat; Y : Nat;
//   eqn Plus(Zero(), Y) = Y;
//       Plus(S(X), Y) = S(Plus(X, Y));
//   input Plus(S(Zero()), S(Zero()));
//
// Keywords are case-insensitive (the paper writes both input and Input)
// but not reserved: Listing 7 has a symbol Sort, and where a keyword
// could start a section or a term, the tokens that follow decide. `//`
// starts a comment.
//
// The TPDB's WST notation lists variables and rules, and the input term
// comes from the command line:
//
//   (VAR x y)
//   (RULES plus(0, y) -> y  plus(s(x), y) -> s(plus(x, y)))
//
// Its symbols are words or runs of operator characters (+, *, <=), and
// nullary symbols may drop their parentheses. Other sections, such as
// (COMMENT ...), are parsed as s-expressions; frontends/trs decides which
// it accepts. A file starting with '(' is WST.
//
// The REC format of the Rewrite Engines Competition declares sorts,
// constructors and operations with their signatures, variables, rules and
// the terms to evaluate, and may include a library file:
//
//   REC-SPEC Fibonacci18
//   #include "fibonacci.rec"
//   EVAL
//     fibb(s(s(d0)))
//   END-SPEC
//
// where fibonacci.rec holds `SORTS Nat  CONS d0 : -> Nat  s : Nat -> Nat
// OPNS ...  VARS N M : Nat  RULES plus(d0, N) -> N ...`. Its includes,
// Its includes and its comments (from %) are handled by frontends/trs
// before parsing (Note [REC]). A rule may have conditions,
// `lhs -> rhs if a -><- b and-if c ->/<- d`: a and b have the same normal
// form, c and d do not (Note [Conditional rules] in frontends/trs).
grammar TRS;

file
    : paperSection+ EOF     # paperFile
    | wstSection+ EOF       # wstFile
    | recSpec EOF           # recFile
    ;

// An input term given on the command line, in either notation.
inputTerm : wterm EOF ;

// ---- The paper's notation ----

paperSection
    : SORT sortDecl+        # sortSection
    | VAR varDecl+          # varSection
    | EQN equation+         # eqnSection
    | INPUT term ';'        # inputSection
    ;

sortDecl : name '=' STRUCT? symDecl ('|' symDecl)* ';' ;
symDecl  : name '(' (name (',' name)*)? ')' ;
varDecl  : name (',' name)* ':' name ';' ;
equation : lhs=term '=' rhs=term ';' ;
term     : name (open='(' (term (',' term)*)? ')')? ;
name     : recName | SORTS | CONS | OPNS | VARS | EVAL | IF ;

// ---- TPDB (WST) notation ----

wstSection
    : '(' VAR name* ')'                 # wstVars
    | '(' RULES wstRule* ')'            # wstRules
    | '(' WORD sexpr* ')'               # wstOther
    ;

// A conditional rule (lhs -> rhs | c -> d, ...) parses, so that the
// frontend can say it is not supported.
wstRule   : lhs=wterm ARROW rhs=wterm condition? ;
condition : '|' wterm ARROW wterm (',' wterm ARROW wterm)* ;
wterm   : wname (open='(' (wterm (',' wterm)*)? ')')? ;
wname   : name | '=' ;   // SK90's =(x, y)
sexpr   : '(' sexpr* ')' | ~('(' | ')') ;

// ---- REC notation ----

recSpec : REC_SPEC recName recSection* (EVAL rterm*)? END_SPEC ;

recSection
    : SORTS recName*            # recSorts
    | (CONS | OPNS) recOp*      # recOps
    | VARS recVars*             # recVarSection
    | RULES recRule*            # recRules
    ;

recOp   : recName ':' recName* ARROW recName ;
recVars : recName+ ':' recName ;
recRule : lhs=rterm ARROW rhs=rterm (IF recCond (ANDIF recCond)*)? ;
recCond : lhs=rterm op=(JOIN | NOJOIN) rhs=rterm ;
rterm   : recName (open='(' (rterm ((',' | ';') rterm)*)? ')')? ;
// The REC keywords are not names there; elsewhere they are.
recName : WORD | OPSYM | SORT | STRUCT | VAR | EQN | INPUT ;

SORT   : [sS][oO][rR][tT] ;
STRUCT : [sS][tT][rR][uU][cC][tT] ;
VAR    : [vV][aA][rR] ;
EQN    : [eE][qQ][nN] ;
INPUT  : [iI][nN][pP][uU][tT] ;
RULES  : 'RULES' ;
ARROW  : '->' ;
REC_SPEC : 'REC-SPEC' ;
END_SPEC : 'END-SPEC' ;
SORTS    : 'SORTS' ;
CONS     : 'CONS' ;
OPNS     : 'OPNS' ;
VARS     : 'VARS' ;
EVAL     : 'EVAL' ;
IF       : 'if' ;
ANDIF    : 'and-if' ;
JOIN     : '-><-' ;
NOJOIN   : '->/<-' ;

WORD   : [A-Za-z0-9_'"]+ ;   // REC's names may hold primes and seconds: B'1, B"1
OPSYM  : [+*/<>!?~^&@#$%.=\-]+ ;

LINE_COMMENT : '//' ~[\r\n]* -> skip ;
WS           : [ \t\r\n]+ -> skip ;
OTHER        : . ;
