#include "tools/report_merge.h"

int main(int argc, char** argv) { return tp::report::tileprobe_report_main(argc, argv); }
