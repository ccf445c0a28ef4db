#include "csv.h"
#include "cut.h"

const char *cut_field(char *line, size_t col)
{
	char *fields[CSV_MAX_FIELDS];
	size_t n = csv_split(line, fields, CSV_MAX_FIELDS);

	if (col >= n)
		return NULL;
	return csv_trim(fields[col]);
}
