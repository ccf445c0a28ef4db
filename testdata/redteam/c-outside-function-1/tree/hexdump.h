#ifndef HEXDUMP_H
#define HEXDUMP_H

/* hex_nibble returns the lower-case hex digit of n & 0xf. */
char hex_nibble(unsigned n);

/* hex_byte writes the two upper-case hex digits of b and a NUL into out. */
void hex_byte(unsigned char b, char out[3]);

#endif
