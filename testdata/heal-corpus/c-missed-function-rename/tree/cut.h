#ifndef CUT_H
#define CUT_H

#include <stddef.h>

/* cut_field returns field col (from 0) of line, trimmed, or NULL. */
const char *cut_field(char *line, size_t col);

#endif
