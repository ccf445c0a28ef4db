int add(int a, int b);

double add(int a, int b) {
    return a + b;
}
