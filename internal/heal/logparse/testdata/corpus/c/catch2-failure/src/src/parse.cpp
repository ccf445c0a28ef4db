#include "parse.h"
#include <stdexcept>

int parse_port(const std::string &s) {
	int v = std::stoi(s);
	if (v < 0 || v > 65536)
		throw std::out_of_range("port");
	return v;
}
