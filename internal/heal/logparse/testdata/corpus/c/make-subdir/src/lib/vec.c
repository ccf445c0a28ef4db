struct vec { int x, y; };

int dot(struct vec a, struct vec b) {
    return a.x * b.x + a.y * b.z;
}
