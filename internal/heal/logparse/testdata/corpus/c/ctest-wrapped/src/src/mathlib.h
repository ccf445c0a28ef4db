int clamp(int v, int lo, int hi);
int mean(const int *v, int n);
int gcd(int a, int b);
