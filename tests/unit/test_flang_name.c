/*
 * test_flang_name.c - flang's internal names made readable
 * (report/attribute/flang_name.c).  The first names are symbols of
 * samples/fortran/update_loop.f90 as flang-19 built it for nvptx64 here
 * (nm); the others are the examples of flang's "Bijective Internal Name
 * Uniquing" document.
 */
#include <stdlib.h>

#include "report/attribute/flang_name.h"
#include "tests/unit/check.h"

static void expect(const char *mangled, const char *want)
{
	char *got = flang_name_demangle(mangled);
	if (want)
		CHECK_STR(got, want);
	else if (got) {
		fprintf(stderr, "%s: got '%s', want none\n", mangled, got);
		check_failures++;
	}
	free(got);
}

static void test_flang19_symbols(void)
{
	expect("_QQmain", "main");
	expect("_QMfieldPstep", "field::step");
	expect("_QMfieldECn", "field::n");
	expect("_QFEa", "main::a");
	expect("__omp_offloading_fe00_51a372__QMfieldPstep_l15", "__omp_offloading_fe00_51a372_field::step_l15");
	/* Literals and read-only data the compiler made: shown as they are. */
	expect("_QQclX2866302E3129", NULL);
	expect("_QQro.4096xr8.0", NULL);
}

static void test_documented_forms(void)
{
	expect("_QMmodSs1modSs2modFsubPfun", "mod:s1mod:s2mod::sub::fun");
	expect("_QPfoo", "foo");
	expect("_QFfooEx", "foo::x");
	expect("_QFmstartGmpitop", NULL);  /* an unknown tag: left alone */
	expect("_QCvariables", "common /variables/");
	expect("_QMmodTtK4", "mod::t(kind=4)");
	expect("_QDTmytypeK2K8K18", "dispatch table of mytype(kind=2,8,18)");
	expect("_QMmodTtKN4", "mod::t(kind=-4)");
}

static void test_not_flang(void)
{
	expect("main", NULL);
	expect("_Z3fooi", NULL);
	expect("_Q", NULL);
	expect("__omp_offloading_fe00_51a372_main_l12", NULL);
	expect(NULL, NULL);
}

int main(void)
{
	RUN(test_flang19_symbols);
	RUN(test_documented_forms);
	RUN(test_not_flang);
	return check_done();
}
