// want lex: TRUE
__kernel void lex(__global int *out, int X, int Y) {
  int x = X, y = Y, s = 0;
  while (x > 0) {
    if (y > 0) {
      y = y - 1;
    } else {
      x = x - 1;
      y = Y;
    }
    s = s + 1;
  }
  out[get_local_id(0)] = s;
}
