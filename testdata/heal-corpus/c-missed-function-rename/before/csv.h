#ifndef CSV_H
#define CSV_H

#include <stddef.h>

#define CSV_MAX_FIELDS 16

/* csv_split splits line in place at commas; it returns the field count. */
size_t csv_split(char *line, char **fields, size_t max);

/* csv_trim strips the blanks around s, in place, and returns it. */
char *csv_trim(char *s);

#endif
