int clamp(int v, int lo, int hi) {
    if (v < lo) return lo;
    if (v > hi) return hi;
    return v;
}

int norm(int v) {
    return clamp(v, 0);
}
