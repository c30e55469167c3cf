// CHR.g4: Prolog clause syntax with the operators that SWI-Prolog's CHR
// library defines, enough to read CHR programs written for SWI-Prolog.
// frontends/chr reads the resulting terms as declarations, rules, queries
// and the Prolog clauses it refuses, and lowers them into gpuc's kernel IR.
//
// The grammar reads terms, not CHR: a rule is the term
// `Name @ Kept \ Removed <=> Guard | Body`, and the frontend takes it apart.
// It is permissive on purpose, so that constructs outside gpuc's subset
// (cuts, disjunctions, lists, strings, pragmas) parse and get a
// diagnostic that names them. Arguments of a compound term are parsed as
// one term and split at top-level commas; parentheses keep a comma term
// whole. Operators and priorities follow SWI-Prolog (op/3 tables of the
// system and of library(chr)). The lexer never makes the USEROP tokens:
// the frontend retypes the uses of infix operators that the program
// declares with op/3 as the one of their priority (Note [User operators]
// in frontends/chr), so that they parse at the priority declared.
grammar CHR;

// OPEN is a '(' after layout, which opens a term in parentheses and never
// an argument list: chr_constraint (~>)/2 is chr_constraint applied to
// (~>)/2, as in Prolog. The frontend retypes it too.
tokens { USEROP200, USEROP400, USEROP500, USEROP600, USEROP700, OPEN }

program : clause* EOF ;

clause : term END ;

// Alternatives bind tighter the earlier they come.
term
    : primary                                                        # primaryTerm
    | <assoc=right> term op='**' term                                # powTerm
    | <assoc=right> term op=('^' | USEROP200) term                   # powTerm
    | op=('-' | '+' | '\\' | '?') term                               # prefixTerm
    | term op=('*' | '/' | '//' | 'mod' | 'rem' | 'div' | '<<' | '>>' | 'xor' | USEROP400) term   # mulTerm
    | term op=('+' | '-' | '/\\' | '\\/' | USEROP500) term           # addTerm
    | term op=USEROP600 term                                         # userTerm
    | term op=('=' | '\\=' | '==' | '\\==' | '<' | '>' | '=<' | '>=' | '=:=' | '=\\='
              | 'is' | '@<' | '@>' | '@=<' | '@>=' | '=..' | USEROP700) term   # cmpTerm
    | term op=':' term                                               # colonTerm
    | term op='#' term                                               # hashTerm
    | op='\\+' term                                                  # notTerm
    | <assoc=right> term op=',' term                                 # commaTerm
    | op=('chr_constraint' | 'constraints' | 'chr_type' | 'dynamic' | 'discontiguous') term  # declTerm
    | <assoc=right> term op='->' term                                # ifTerm
    | <assoc=right> term op=(';' | '|') term                         # orTerm
    | term op='\\' term                                              # backslashTerm
    | term op=('<=>' | '==>') term                                   # ruleTerm
    | term op='pragma' term                                          # pragmaTerm
    | term op='@' term                                               # namedTerm
    | term op=(':-' | '-->') term                                    # clauseTerm
    | op=(':-' | '?-') term                                          # directiveTerm
    ;

primary
    : name=atom '(' term ')'                                         # compound
    | INT                                                            # int
    | FLOAT                                                          # float
    | VAR                                                            # var
    | atom                                                           # atomTerm
    | ('(' | OPEN) term ')'                                          # paren
    | '[' term? ']'                                                  # list
    | '{' term '}'                                                   # curly
    | STRING                                                         # string
    | '!'                                                            # cut
    ;

// Words that are also operators may name atoms and functors.
atom
    : NAME | QUOTED | SYMBOL
    | 'mod' | 'rem' | 'div' | 'xor' | 'is' | 'pragma'
    | 'chr_constraint' | 'constraints' | 'chr_type' | 'dynamic' | 'discontiguous'
    ;

INT    : [0-9]+ ;
FLOAT  : [0-9]+ '.' [0-9]+ ([eE] [+-]? [0-9]+)? | [0-9]+ [eE] [+-]? [0-9]+ ;
VAR    : [A-Z_] [a-zA-Z0-9_]* ;
NAME   : [a-z] [a-zA-Z0-9_]* ;
QUOTED : '\'' (~['\\\r\n] | '\\' . | '\'\'')* '\'' ;
STRING : '"' (~["\\\r\n] | '\\' .)* '"' | '`' (~[`\r\n])* '`' ;
// The end of a clause: a full stop followed by layout or a comment.
END    : '.' ([ \t\r\n] | '%' ~[\r\n]*) ;
// Any other run of symbol characters is an atom, as in Prolog.
SYMBOL : [+\-*/\\^<>=~:?@#&$.]+ | [\u0080-\uFFFF] ;

LINE_COMMENT  : '%' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS            : [ \t\r\n]+ -> skip ;
