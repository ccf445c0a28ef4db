const x = 1;
foo();
