// KIR.g4: the text form of gpuc's kernel IR (.kir).
//
// The printer in ir/print.go writes exactly this language, and
// frontends/kir builds an ir.Module from its parse tree. Names of types,
// memory spaces, roles, atomic operations and builtins are plain
// identifiers here; the builder checks them, so they stay usable as
// variable names where no ambiguity arises.
grammar KIR;

module_ : 'module' IDENT ';' decl* EOF ;

decl
    : 'param' IDENT ':' IDENT '=' signedNumber (fit=IDENT signedNumber)? ';'          # paramDecl
    | 'buffer' IDENT ':' IDENT '[' expr ']' IDENT IDENT (IDENT STRING)? ('=' initList)? ';' # bufferDecl
    | 'array' IDENT ':' IDENT '[' expr ']' ';'                                       # arrayDecl
    | kind=('kernel' | 'func' | 'host') IDENT '(' fields? ')' (':' IDENT)? block     # funcDecl
    ;

fields : field (',' field)* ;
field  : IDENT ':' IDENT ;

initList     : '{' (signedNumber (',' signedNumber)*)? '}' ;
signedNumber : '-'? (INT | FLOAT | 'true' | 'false' | 'inf' | 'nan') ;

block : '{' stmt* '}' ;

stmt
    : simpleStmt ';'                                                        # simple
    | (IDENT '=')? 'atomic' op=IDENT buf=IDENT '[' expr ']' (',' expr)* ';' # atomicStmt
    | 'prio'? IDENT '[' expr ']' '=' expr ';'                               # storeStmt
    | IDENT '(' args? ')' ';'                                               # callStmt
    | ifStmt                                                                # if
    | 'while' expr block                                                    # whileStmt
    | 'for' init=simpleStmt? ';' expr ';' post=simpleStmt? block            # forStmt
    | 'break' ';'                                                           # breakStmt
    | 'continue' ';'                                                        # continueStmt
    | 'return' expr? ';'                                                    # returnStmt
    | 'switch' expr '{' caseClause* ('default' block)? '}'                  # switchStmt
    | 'barrier' IDENT? ';'                                                  # barrierStmt
    | 'raise' STRING ';'                                                    # raiseStmt
    | 'split' expr block ('else' block)?                                    # splitStmt
    | 'split' 'while' expr block                                            # splitWhileStmt
    | 'fork' expr ',' IDENT '=' expr ',' IDENT '=' expr block               # forkStmt
    | 'launch' IDENT '(' args? ')' IDENT expr IDENT expr attrs+=IDENT* ('else' block | ';') # launchStmt
    | 'region' expr world=IDENT? block                                      # regionStmt
    | 'world_barrier' ';'                                                   # worldBarrierStmt
    | 'allgather' IDENT ';'                                                 # allGatherStmt
    | IDENT '=' 'allreduce' '(' op=IDENT ',' expr ')' ';'                   # allReduceStmt
    | 'copy' IDENT '[' expr ']' ',' IDENT '[' expr ']' ',' expr ';'         # copyStmt
    | 'swap' IDENT ',' IDENT ';'                                            # swapStmt
    | 'printf' IDENT? STRING (',' expr)* ';'                                # printfStmt
    ;

// simpleStmt is what a for loop's init and post may hold.
simpleStmt
    : 'var' IDENT ':' IDENT ('=' expr)?   # declStmt
    | IDENT '=' expr                      # assignStmt
    ;

ifStmt : 'if' expr block ('else' (ifStmt | block))? ;

caseClause : 'case' signedNumber (',' signedNumber)* block ;

args : expr (',' expr)* ;

expr
    : primary                                       # primaryExpr
    | op=('-' | '!' | '~') expr                     # unaryExpr
    | expr op=('*' | '/' | '%') expr                # binaryExpr
    | expr op=('+' | '-') expr                      # binaryExpr
    | expr op=('<<' | '>>') expr                    # binaryExpr
    | expr op=('<' | '<=' | '>' | '>=') expr        # binaryExpr
    | expr op=('==' | '!=') expr                    # binaryExpr
    | expr op='&' expr                              # binaryExpr
    | expr op='^' expr                              # binaryExpr
    | expr op='|' expr                              # binaryExpr
    | expr op='&&' expr                             # binaryExpr
    | expr op='||' expr                             # binaryExpr
    | <assoc = right> expr '?' expr ':' expr        # selectExpr
    ;

primary
    : INT                       # intLit
    | FLOAT                     # floatLit
    | ('true' | 'false')        # boolLit
    | ('inf' | 'nan')           # specialLit
    | STRING                    # stringLit
    | IDENT '(' args? ')'       # callExpr
    | IDENT '[' expr ']'        # loadExpr
    | IDENT                     # nameExpr
    | '(' expr ')'              # parenExpr
    ;

INT    : DIGITS ('u' | 'l' | 'ul')? | '0x' HEX+ ('u' | 'l' | 'ul')? ;
FLOAT  : DIGITS '.' DIGITS EXP? 'f'? | DIGITS EXP 'f'? ;
IDENT  : [a-zA-Z_] [a-zA-Z0-9_]* ;
STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;

fragment DIGITS : [0-9]+ ;
fragment HEX    : [0-9a-fA-F] ;
fragment EXP    : [eE] [+-]? DIGITS ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS            : [ \t\r\n]+ -> skip ;
