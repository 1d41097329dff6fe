# netsim::pcap: libpcap (Debian libpcap-dev), for the capture files. Used by
# the build and by the installed package's config, so that the static
# libnetsim.a's link interface names a target both can define.
if(NOT TARGET netsim::pcap)
  find_path(netsim_PCAP_INCLUDE_DIR pcap/pcap.h)
  find_library(netsim_PCAP_LIBRARY pcap)
  if(NOT netsim_PCAP_INCLUDE_DIR OR NOT netsim_PCAP_LIBRARY)
    message(FATAL_ERROR "libpcap not found: install Debian's libpcap-dev (tools/setup.sh does)")
  endif()
  add_library(netsim::pcap INTERFACE IMPORTED)
  set_target_properties(netsim::pcap PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${netsim_PCAP_INCLUDE_DIR}"
                                                INTERFACE_LINK_LIBRARIES "${netsim_PCAP_LIBRARY}")
endif()
