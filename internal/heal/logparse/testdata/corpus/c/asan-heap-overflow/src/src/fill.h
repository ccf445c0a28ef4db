int fill(int *v, int n);
