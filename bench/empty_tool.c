/*
 * empty_tool.c - an OMPT tool that asks for the collector's target callbacks
 * and does nothing in them: what the OpenMP runtime and 'mapprof record'
 * cost a program before the collector records anything.
 *
 * 'make bench' runs it through 'mapprof record' (MAPPROF_COLLECTOR) to print
 * the floor under its geometric mean.  It writes no spool, so record says
 * the collector never started; only the run's wall time is used.
 */
#include <omp-tools.h>
#include <stddef.h>

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
		      ompt_data_t *task_data, ompt_data_t *target_task_data,
		      ompt_data_t *target_data, const void *codeptr_ra)
{
	(void)kind, (void)endpoint, (void)device_num, (void)task_data;
	(void)target_task_data, (void)target_data, (void)codeptr_ra;
}

static void on_data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
		       ompt_data_t *target_data, ompt_id_t *host_op_id,
		       ompt_target_data_op_t optype, void *src_addr, int src_device_num,
		       void *dest_addr, int dest_device_num, size_t bytes, const void *codeptr_ra)
{
	(void)endpoint, (void)target_task_data, (void)target_data, (void)host_op_id, (void)optype;
	(void)src_addr, (void)src_device_num, (void)dest_addr, (void)dest_device_num, (void)bytes;
	(void)codeptr_ra;
}

static void on_submit(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
		      ompt_id_t *host_op_id, unsigned int requested_num_teams)
{
	(void)endpoint, (void)target_data, (void)host_op_id, (void)requested_num_teams;
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	(void)initial_device_num, (void)tool_data;

	if (!set)
		return 0;
	set(ompt_callback_target_emi, (ompt_callback_t)on_target);
	set(ompt_callback_target_data_op_emi, (ompt_callback_t)on_data_op);
	set(ompt_callback_target_submit_emi, (ompt_callback_t)on_submit);
	return 1;
}

static void finalize(ompt_data_t *tool_data)
{
	(void)tool_data;
}

__attribute__((visibility("default")))
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime)
{
	static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
	(void)omp_version, (void)runtime;
	return &result;
}
