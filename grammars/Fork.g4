// Fork.g4: the subset of Fork, the PRAM language of Keßler, Keller and
// Träff, that gpuc compiles. It is C with processor groups: sh/pr storage
// classes, $ and @, start, seq, farm, fork, barrier, sync/async functions
// and the SB-PRAM multiprefix operations. frontends/fork lowers the parse
// tree into gpuc's kernel IR at the SPMD level.
grammar Fork;

program : topDecl* EOF ;

topDecl
    : 'const' typeName IDENT '=' expr ';'                    # constDecl
    | varDecl                                                # globalVar
    | funcMode? typeName IDENT '(' params? ')' block         # funcDef
    ;

funcMode : 'sync' | 'async' ;

params : param (',' param)* ;
param  : storage? typeName IDENT ('[' ']' ('[' expr ']')?)? ;

storage  : 'sh' | 'pr' ;
typeName : 'int' | 'unsigned' 'int'? | 'long' 'int'? | 'unsigned' 'long' | 'float' | 'double' | 'char' | 'bool' | 'void' ;

varDecl    : storage? 'static'? 'const'? typeName declarator (',' declarator)* ';' ;
declarator : IDENT ('[' expr ']' ('[' expr ']')?)? ('=' initializer)? ;
initializer: expr | '{' (initializer (',' initializer)* ','?)? '}' ;

block : '{' blockItem* '}' ;
blockItem : varDecl | stmt ;

stmt
    : block                                                            # blockStmt
    | expr? ';'                                                        # exprStmt
    | 'if' '(' expr ')' stmt ('else' stmt)?                            # ifStmt
    | 'while' '(' expr ')' stmt                                        # whileStmt
    | 'do' stmt 'while' '(' expr ')' ';'                               # doStmt
    | 'for' '(' forInit? ';' expr? ';' exprList? ')' stmt              # forStmt
    | 'break' ';'                                                      # breakStmt
    | 'continue' ';'                                                   # continueStmt
    | 'return' expr? ';'                                               # returnStmt
    | 'start' ('(' expr ')')? stmt                                     # startStmt
    | 'seq' stmt                                                       # seqStmt
    | 'farm' stmt                                                      # farmStmt
    | 'fork' '(' expr ';' '@' '=' expr ';' '$' '=' expr ')' stmt       # forkStmt
    | 'barrier' ';'                                                    # barrierStmt
    ;

forInit  : varDecl0 | exprList ;
varDecl0 : storage? typeName declarator (',' declarator)* ;
exprList : expr (',' expr)* ;

expr
    : primary                                                           # primaryExpr
    | expr '[' expr ']'                                                 # indexExpr
    | IDENT '(' args? ')'                                               # callExpr
    | expr op=('++' | '--')                                             # postfixExpr
    | op=('++' | '--') expr                                             # prefixExpr
    | op=('-' | '+' | '!' | '~') expr                                   # unaryExpr
    | '&' expr                                                          # addressExpr
    | '(' typeName ')' expr                                             # castExpr
    | expr op=('*' | '/' | '%') expr                                    # binaryExpr
    | expr op=('+' | '-') expr                                          # binaryExpr
    | expr op=('<<' | '>>') expr                                        # binaryExpr
    | expr op=('<' | '<=' | '>' | '>=') expr                            # binaryExpr
    | expr op=('==' | '!=') expr                                        # binaryExpr
    | expr op='&' expr                                                  # binaryExpr
    | expr op='^' expr                                                  # binaryExpr
    | expr op='|' expr                                                  # binaryExpr
    | expr op='&&' expr                                                 # binaryExpr
    | expr op='||' expr                                                 # binaryExpr
    | <assoc = right> expr '?' expr ':' expr                            # condExpr
    | <assoc = right> expr op=('=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=') expr # assignExpr
    ;

args : expr (',' expr)* ;

primary
    : INT                # intLit
    | FLOAT              # floatLit
    | CHAR               # charLit
    | STRING+            # stringLit
    | ('true' | 'false') # boolLit
    | '$'                # procId
    | '@'                # groupId
    | IDENT              # name
    | '(' expr ')'       # paren
    ;

INT    : ([0-9]+ | '0' [xX] [0-9a-fA-F]+) [uUlL]* ;
FLOAT  : ([0-9]+ '.' [0-9]* | '.' [0-9]+) ([eE] [+-]? [0-9]+)? [fF]? | [0-9]+ [eE] [+-]? [0-9]+ [fF]? ;
CHAR   : '\'' (~['\\\r\n] | '\\' ~[\r\n] ('x' [0-9a-fA-F]+)?) '\'' ;
STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;
IDENT  : [a-zA-Z_] [a-zA-Z0-9_]* ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
PREPROCESSOR  : '#' ~[\r\n]* -> skip ;
WS            : [ \t\r\n]+ -> skip ;
