package com.x;

class B {
    static int count() { return "x"; }
    static void f() { undefinedCall(); }
}
