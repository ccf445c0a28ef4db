#pragma once
#include <string>
int parse_port(const std::string &s);
