// want float_counter: UNKNOWN
__kernel void float_counter(__global int *out) {
  int s = 0;
  for (float f = 0.0f; f < 10.0f; f = f + 1.0f)
    s = s + 1;
  out[get_local_id(0)] = s;
}
