// want spin_flag: UNKNOWN
__kernel void spin_flag(volatile __global int *flag, __global int *out) {
  if (get_local_id(0) == 0) {
    while (flag[0] == 0)
      out[0] = 1;
  } else {
    flag[0] = 1;
  }
}
