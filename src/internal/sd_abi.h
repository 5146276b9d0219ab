/*
 * sd_abi.h - the internal functions that cross a library boundary.
 *
 * libdoca_dma, libdoca_comch and libdoca_argp call into libdoca_common
 * through the seams in this folder, and the white-box tests call a few of
 * them too. Those functions must be exported from the shared library; every
 * other internal function stays hidden (src/libdoca.map). They are exported
 * under the priv_doca_ prefix, which is how DOCA itself names the private
 * functions its libraries share: programs never call them, and nothing
 * outside softdoca may rely on them.
 *
 * The sources keep calling them by their sd_ names; this header, included
 * first by every seam header, maps each name to its exported symbol. A
 * function that starts crossing a library boundary is added here.
 */
#ifndef SD_ABI_H_
#define SD_ABI_H_

#define sd_buf_chain_data_len priv_doca_sd_buf_chain_data_len
#define sd_comch_conn_dev priv_doca_sd_comch_conn_dev
#define sd_comch_conn_fp_attach priv_doca_sd_comch_conn_fp_attach
#define sd_comch_conn_fp_send priv_doca_sd_comch_conn_fp_send
#define sd_comch_conn_is_alive priv_doca_sd_comch_conn_is_alive
#define sd_comch_conn_ref priv_doca_sd_comch_conn_ref
#define sd_comch_conn_unref priv_doca_sd_comch_conn_unref
#define sd_ctx_check_idle priv_doca_sd_ctx_check_idle
#define sd_ctx_fail priv_doca_sd_ctx_fail
#define sd_ctx_fini priv_doca_sd_ctx_fini
#define sd_ctx_init priv_doca_sd_ctx_init
#define sd_ctx_set_running priv_doca_sd_ctx_set_running
#define sd_ctx_stop_done priv_doca_sd_ctx_stop_done
#define sd_dev_caps priv_doca_sd_dev_caps
#define sd_dev_card priv_doca_sd_dev_card
#define sd_dev_get priv_doca_sd_dev_get
#define sd_dev_pci_addr priv_doca_sd_dev_pci_addr
#define sd_dev_put priv_doca_sd_dev_put
#define sd_dev_rep_card priv_doca_sd_dev_rep_card
#define sd_dev_rep_get priv_doca_sd_dev_rep_get
#define sd_dev_rep_pci_addr priv_doca_sd_dev_rep_pci_addr
#define sd_dev_rep_put priv_doca_sd_dev_rep_put
#define sd_devinfo_caps priv_doca_sd_devinfo_caps
#define sd_topo_card_link priv_doca_sd_topo_card_link
#define sd_topo_link priv_doca_sd_topo_link
#define sd_env_bool priv_doca_sd_env_bool
#define sd_env_u64 priv_doca_sd_env_u64
#define sd_fabric_transport priv_doca_sd_fabric_transport
#define sd_fault_comch_send priv_doca_sd_fault_comch_send
#define sd_fault_comch_submit priv_doca_sd_fault_comch_submit
#define sd_fault_dma_submit priv_doca_sd_fault_dma_submit
#define sd_fault_producer_send priv_doca_sd_fault_producer_send
#define sd_fault_setup priv_doca_sd_fault_setup
#define sd_fault_where priv_doca_sd_fault_where
#define sd_frame_hdr_init priv_doca_sd_frame_hdr_init
#define sd_frame_parse priv_doca_sd_frame_parse
#define sd_frame_type_name priv_doca_sd_frame_type_name
#define sd_link_fastpath priv_doca_sd_link_fastpath
#define sd_log_sdk priv_doca_sd_log_sdk
#define sd_log_sdk_max_level priv_doca_sd_log_sdk_max_level
#define sd_mmap_access priv_doca_sd_mmap_access
#define sd_mmap_can_read priv_doca_sd_mmap_can_read
#define sd_mmap_can_write priv_doca_sd_mmap_can_write
#define sd_mmap_contains priv_doca_sd_mmap_contains
#define sd_mmap_has_dev priv_doca_sd_mmap_has_dev
#define sd_mmap_is_started priv_doca_sd_mmap_is_started
#define sd_mmap_len priv_doca_sd_mmap_len
#define sd_mmap_remote priv_doca_sd_mmap_remote
#define sd_now_ns priv_doca_sd_now_ns
#define sd_pages_put priv_doca_sd_pages_put
#define sd_pages_share priv_doca_sd_pages_share
#define sd_pci_canonical priv_doca_sd_pci_canonical
#define sd_pe_unwatch_fd priv_doca_sd_pe_unwatch_fd
#define sd_pe_wake priv_doca_sd_pe_wake
#define sd_pe_watch_fd priv_doca_sd_pe_watch_fd
#define sd_remote_desc_checksum priv_doca_sd_remote_desc_checksum
#define sd_remote_direct priv_doca_sd_remote_direct
#define sd_remote_pci priv_doca_sd_remote_pci
#define sd_remote_pid priv_doca_sd_remote_pid
#define sd_remote_read priv_doca_sd_remote_read
#define sd_remote_side priv_doca_sd_remote_side
#define sd_remote_write priv_doca_sd_remote_write
#define sd_side priv_doca_sd_side
#define sd_task_alloc priv_doca_sd_task_alloc
#define sd_task_class_conf priv_doca_sd_task_class_conf
#define sd_task_class_init priv_doca_sd_task_class_init
#define sd_task_complete priv_doca_sd_task_complete
#define sd_task_fail priv_doca_sd_task_fail
#define sd_trace_async_begin priv_doca_sd_trace_async_begin
#define sd_trace_async_end priv_doca_sd_trace_async_end
#define sd_trace_enabled priv_doca_sd_trace_enabled
#define sd_trace_instant priv_doca_sd_trace_instant
#define sd_trace_json_str priv_doca_sd_trace_json_str
#define sd_trace_now priv_doca_sd_trace_now
#define sd_trace_span priv_doca_sd_trace_span

#endif /* SD_ABI_H_ */
