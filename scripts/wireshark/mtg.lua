-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- Wireshark and tshark dissectors for the MTG header (struct mtg_hdr in
-- kmod/uapi/mtg.h; Documentation/abi.rst, "The MTG header") and for TSP,
-- the signalling between two hosts over TCP (protocol mtgtsp, at the end
-- of this file; Documentation/tsp.rst), with the log server's UDP
-- datagrams (protocol mtglog, last). Their fields and filters are in
-- Documentation/wireshark.rst.
--
-- Install: copy to ~/.local/lib/wireshark/plugins/ (or load it once with
-- tshark -X lua_script:mtg.lua). It takes any UDP payload that starts with
-- the magic "MTG1" and holds a whole header (heuristic "mtg_udp"), and
-- every UDP payload on the ports of the preference mtg.udp_ports; and the
-- data of ICMP and ICMPv6 echoes that start with the magic (heuristics
-- "mtg_icmp", "mtg_icmpv6": an ICMP TG's requests and their replies),
-- whose checksum is the ICMP dissector's to verify; and a TCP TG's
-- messages, each after its 2-byte length (heuristic "mtg_tcp", on a
-- segment that starts with a length and the magic; reassembled when a
-- message spans segments), whose checksum is TCP's.
--
-- Verified here, whatever the UDP dissector's own preferences: the header's
-- CRC32C (mtg.crc.status) and the UDP checksum over the pseudo-header
-- (mtg.udp_checksum.status), each with an expert item when wrong.
--
-- Wireshark 4.x, Lua 5.2 (bit32). tests/host/test_wireshark.py checks every
-- field against scripts/mtgwitness/wire.py, frame by frame.

local MAGIC = 0x4d544731        -- "MTG1"
local VERSION = 1
local HDR_LEN = 88
local CRC_LEN = 44              -- bytes the CRC covers
local IPPROTO_UDP = 17

local F_CTRL = 0x01            -- MTG_HDR_F_CTRL

local mtg = Proto("mtg", "MTG traffic generator")

-- Checksum status, as Wireshark's own dissectors give it (proto.h's
-- proto_checksum_enum_e), so `mtg.crc.status == "Bad"` reads as
-- `udp.checksum.status == "Bad"` does.
local ST_BAD, ST_GOOD, ST_UNVERIFIED, ST_NOT_PRESENT, ST_ILLEGAL =
	0, 1, 2, 3, 4
local status_names = {
	[ST_BAD] = "Bad", [ST_GOOD] = "Good",
	[ST_UNVERIFIED] = "Unverified", [ST_NOT_PRESENT] = "Not present",
	[ST_ILLEGAL] = "Illegal",
}

local patt_names = {
	[0] = "FIXED", [1] = "RANDOM", [2] = "INCR", [3] = "CTRL",
}

local pf = {
	magic = ProtoField.uint32("mtg.magic", "Magic", base.HEX),
	version = ProtoField.uint8("mtg.version", "Version", base.DEC),
	flags = ProtoField.uint8("mtg.flags", "Flags", base.HEX),
	flag_ctrl = ProtoField.bool("mtg.flags.ctrl", "Control message", 8,
				    nil, 0x01),
	flag_keep_payload = ProtoField.bool("mtg.flags.keep_payload",
					    "Keep the payload", 8, nil, 0x02),
	flag_keep_bits = ProtoField.bool("mtg.flags.keep_bits",
					 "Keep the wrong bits' places", 8,
					 nil, 0x04),
	flag_reserved = ProtoField.uint8("mtg.flags.reserved", "Reserved",
					 base.HEX, nil, 0xf8),
	hdr_len = ProtoField.uint16("mtg.hdr_len", "Header length", base.DEC),
	run = ProtoField.uint32("mtg.run", "Run", base.DEC),
	tg = ProtoField.uint32("mtg.tg", "TG", base.DEC),
	seq = ProtoField.uint64("mtg.seq", "Sequence number", base.DEC),
	sched = ProtoField.uint64("mtg.sched", "Scheduled departure (ns, TAI)",
				  base.DEC),
	nut = ProtoField.bytes("mtg.nut", "NUT bytes"),
	patt_kind = ProtoField.uint8("mtg.patt.kind", "Pattern", base.DEC,
				     patt_names),
	patt_value = ProtoField.uint8("mtg.patt.value", "Pattern value",
				      base.DEC),
	patt_seed = ProtoField.uint32("mtg.patt.seed", "Pattern seed",
				      base.HEX),
	crc = ProtoField.uint32("mtg.crc", "Header CRC32C", base.HEX),
	crc_computed = ProtoField.uint32("mtg.crc.computed",
					 "Computed CRC32C", base.HEX),
	crc_status = ProtoField.uint8("mtg.crc.status", "Header CRC status",
				      base.DEC, status_names),
	tx = ProtoField.uint64("mtg.tx", "TX stamp (ns, TAI)", base.DEC),
	late = ProtoField.int64("mtg.late", "Lateness (TX - scheduled, ns)",
				base.DEC),
	tp = {},
	udp_computed = ProtoField.uint16("mtg.udp_checksum.computed",
					 "UDP checksum it must carry",
					 base.HEX),
	udp_status = ProtoField.uint8("mtg.udp_checksum.status",
				      "UDP checksum status", base.DEC,
				      status_names),
	ctrl_data = ProtoField.bytes("mtg.ctrl.data", "Control data"),
	msg_len = ProtoField.uint16("mtg.msg_len",
				    "Message length (over TCP)", base.DEC),
	payload = ProtoField.bytes("mtg.payload", "Payload"),
}
for i = 0, 3 do
	pf.tp[i] = ProtoField.uint64("mtg.tp" .. i, "Test point " .. i ..
				     " stamp (ns, TAI)", base.DEC)
end

local fields = {}
for k, v in pairs(pf) do
	if k == "tp" then
		for i = 0, 3 do fields[#fields + 1] = v[i] end
	else
		fields[#fields + 1] = v
	end
end
mtg.fields = fields

local ex = {
	crc_bad = ProtoExpert.new("mtg.crc.bad", "Bad MTG header CRC32C: "
				  .. "run, TG and sequence number cannot be "
				  .. "trusted", expert.group.CHECKSUM,
				  expert.severity.ERROR),
	udp_bad = ProtoExpert.new("mtg.udp_checksum.bad", "Bad UDP checksum",
				  expert.group.CHECKSUM,
				  expert.severity.ERROR),
	udp_absent = ProtoExpert.new("mtg.udp_checksum.absent",
				     "No UDP checksum (mtg always sends one)",
				     expert.group.CHECKSUM,
				     expert.severity.WARN),
	bad_magic = ProtoExpert.new("mtg.magic.bad", "Not the MTG magic",
				    expert.group.MALFORMED,
				    expert.severity.ERROR),
	short = ProtoExpert.new("mtg.short", "Shorter than an MTG header",
				expert.group.MALFORMED,
				expert.severity.ERROR),
	version = ProtoExpert.new("mtg.version.unknown",
				  "Header version or length this dissector "
				  .. "does not know", expert.group.PROTOCOL,
				  expert.severity.WARN),
	ctrl = ProtoExpert.new("mtg.ctrl", "Control message",
			       expert.group.SEQUENCE, expert.severity.CHAT),
}
mtg.experts = { ex.crc_bad, ex.udp_bad, ex.udp_absent, ex.bad_magic,
		ex.short, ex.version, ex.ctrl }

mtg.prefs.udp_ports = Pref.range("UDP ports", "",
	"UDP ports whose every payload is MTG, even without the magic "
	.. "(frames elsewhere are found by their magic)", 65535)

-- The UDP header and the addresses of the datagram we are in: the last
-- of each field is the innermost layer's.
local f_ip_src = Field.new("ip.src")
local f_ip_dst = Field.new("ip.dst")
local f_ip6_src = Field.new("ipv6.src")
local f_ip6_dst = Field.new("ipv6.dst")
local f_udp_sport = Field.new("udp.srcport")
local f_udp_dport = Field.new("udp.dstport")
local f_udp_len = Field.new("udp.length")
local f_udp_csum = Field.new("udp.checksum")

local function last(field)
	local all = { field() }
	return all[#all]
end

-- CRC32C (Castagnoli, reflected, initial value and final xor 0xffffffff),
-- as kmod/mtg_wire.c and wire.crc32c compute it.
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit32.band(c, 1) == 1 then
			c = bit32.bxor(bit32.rshift(c, 1), 0x82f63b78)
		else
			c = bit32.rshift(c, 1)
		end
	end
	crc_table[i] = c
end

local function crc32c(s)
	local crc = 0xffffffff
	for i = 1, #s do
		local idx = bit32.band(bit32.bxor(crc, s:byte(i)), 0xff)
		crc = bit32.bxor(crc_table[idx], bit32.rshift(crc, 8))
	end
	return bit32.bxor(crc, 0xffffffff)
end

-- The one's complement sum (RFC 1071) of the 16-bit words of s, unfolded.
local function word_sum(s)
	local sum = 0
	local n = #s
	for i = 1, n - 1, 2 do
		local a, b = s:byte(i, i + 1)
		sum = sum + a * 256 + b
	end
	if n % 2 == 1 then
		sum = sum + s:byte(n) * 256
	end
	return sum
end

local function fold(sum)
	while sum > 0xffff do
		sum = sum % 0x10000 + math.floor(sum / 0x10000)
	end
	return sum
end

-- The UDP checksum of the datagram whose payload is tvb: its status and
-- the value the field must carry (nil when it cannot be computed).
local function udp_checksum(tvb, pinfo)
	local csum_fi, len_fi = last(f_udp_csum), last(f_udp_len)
	local sport, dport = last(f_udp_sport), last(f_udp_dport)
	if not (csum_fi and len_fi and sport and dport) then
		return ST_UNVERIFIED
	end
	local src, dst, v6
	local s4, d4 = last(f_ip_src), last(f_ip_dst)
	local s6, d6 = last(f_ip6_src), last(f_ip6_dst)
	if s4 and d4 and s4.value == pinfo.net_src and
	   d4.value == pinfo.net_dst then
		src, dst, v6 = s4, d4, false
	elseif s6 and d6 and s6.value == pinfo.net_src and
	       d6.value == pinfo.net_dst then
		src, dst, v6 = s6, d6, true
	else
		return ST_UNVERIFIED
	end
	local csum, udp_len = csum_fi.value, len_fi.value
	if csum == 0 and not v6 then
		return ST_NOT_PRESENT   -- optional over IPv4 only
	end
	local n = tvb:reported_len()
	if tvb:captured_len() < n or udp_len ~= n + 8 then
		return ST_UNVERIFIED
	end
	local sum = word_sum(src.range:raw()) + word_sum(dst.range:raw()) +
		IPPROTO_UDP + udp_len +
		sport.value + dport.value + udp_len + word_sum(tvb:raw(0, n))
	local want = 0xffff - fold(sum)
	if want == 0 then
		want = 0xffff
	end
	if csum == 0 then
		return ST_ILLEGAL, want         -- zero over IPv6 (RFC 8200)
	end
	return fold(sum + csum) == 0xffff and ST_GOOD or ST_BAD, want
end

-- A TAI stamp in ns (UInt64) as a date; TAI is shown without leap seconds.
local function tai_text(ns)
	if ns == UInt64(0) then
		return "not stamped"
	end
	local sec = (ns / 1000000000):tonumber()
	local frac = (ns % 1000000000):tonumber()
	return string.format("%s.%09d TAI", os.date("!%Y-%m-%d %H:%M:%S", sec),
			     frac)
end

local function printable(s)
	return not s:find("[^\32-\126]")
end

-- The capture kept less than the datagram (tcpdump -s): an item past the
-- bytes kept throws Wireshark's ReportedBoundsError, as in its own
-- dissectors, and the frame is marked "packet size limited during
-- capture" (_ws.short).
local function cut_short(t, tvb)
	t:add(pf.payload, tvb(tvb:captured_len() + 1))
end

-- The flag bits (MTG_HDR_F_*): mask, name after mtg.flags' value, field.
local flag_bits = {
	{ mask = 0x01, name = "ctrl", field = pf.flag_ctrl },
	{ mask = 0x02, name = "keep_payload", field = pf.flag_keep_payload },
	{ mask = 0x04, name = "keep_bits", field = pf.flag_keep_bits },
}

-- A field whose value this version of the header fixes: flagged if not.
local function add_fixed(t, tvb, field, off, len, want)
	local item = t:add(field, tvb(off, len))
	if tvb(off, len):uint() ~= want then
		item:add_proto_expert_info(ex.version)
	end
end

-- icmp: the data of an ICMP echo, not a UDP payload.
-- icmp: the datagram's checksum is not UDP's (an ICMP echo's, or a TCP
-- segment's), its own dissector's to verify.
local function dissect(tvb, pinfo, tree, icmp)
	local n = tvb:reported_len()
	pinfo.cols.protocol = "MTG"
	local t = tree:add(mtg, tvb())
	if n < HDR_LEN then
		t:add_proto_expert_info(ex.short, string.format(
			"Shorter than an MTG header: %d of %d bytes", n,
			HDR_LEN))
		pinfo.cols.info = "MTG: short"
		return n
	end
	local cap = tvb:captured_len()
	if cap < 4 then
		pinfo.cols.info = "MTG: cut short"
		cut_short(t, tvb)
	end
	local magic = tvb(0, 4):uint()
	local mi = t:add(pf.magic, tvb(0, 4))
	if magic ~= MAGIC then
		mi:add_proto_expert_info(ex.bad_magic)
	else
		mi:append_text(' ("MTG1")')
	end
	-- A capture cut short: the fields whose bytes are there.
	local function has(off, len) return off + len <= cap end
	if has(4, 1) then add_fixed(t, tvb, pf.version, 4, 1, VERSION) end
	local flags = has(5, 1) and tvb(5, 1):uint() or 0
	if has(5, 1) then
		local fi = t:add(pf.flags, tvb(5, 1))
		local names = {}
		for _, f in ipairs(flag_bits) do
			if bit32.band(flags, f.mask) ~= 0 then
				names[#names + 1] = f.name
			end
			fi:add(f.field, tvb(5, 1))
		end
		if #names > 0 then
			fi:append_text(" (" .. table.concat(names, ", ") .. ")")
		end
		fi:add(pf.flag_reserved, tvb(5, 1))
	end
	if has(6, 2) then add_fixed(t, tvb, pf.hdr_len, 6, 2, HDR_LEN) end
	if has(8, 4) then
		t:add(pf.run, tvb(8, 4)):append_text(string.format(
			" (0x%08x)", tvb(8, 4):uint()))
	end
	if has(12, 4) then t:add(pf.tg, tvb(12, 4)) end
	if has(16, 8) then t:add(pf.seq, tvb(16, 8)) end
	if has(24, 8) then
		t:add(pf.sched, tvb(24, 8)):append_text(
			" (" .. tai_text(tvb(24, 8):uint64()) .. ")")
	end
	if has(32, 6) then t:add(pf.nut, tvb(32, 6)) end
	if has(38, 1) then t:add(pf.patt_kind, tvb(38, 1)) end
	if has(39, 1) then t:add(pf.patt_value, tvb(39, 1)) end
	if has(40, 4) then t:add(pf.patt_seed, tvb(40, 4)) end

	local crc_status = ST_UNVERIFIED
	if has(44, 4) then
		local crc = tvb(44, 4):uint()
		local want = crc32c(tvb:raw(0, CRC_LEN))
		crc_status = crc == want and ST_GOOD or ST_BAD
		local ci = t:add(pf.crc, tvb(44, 4))
		ci:append_text(crc_status == ST_GOOD and " [correct]" or
			       string.format(" [incorrect, should be 0x%08x]",
					     want))
		ci:add(pf.crc_computed, tvb(44, 4), want):set_generated()
		ci:add(pf.crc_status, tvb(44, 4), crc_status):set_generated()
		if crc_status == ST_BAD then
			ci:add_proto_expert_info(ex.crc_bad)
		end
	else
		t:add(pf.crc_status, crc_status):set_generated()
	end
	if has(48, 8) then
		local tx = tvb(48, 8):uint64()
		t:add(pf.tx, tvb(48, 8)):append_text(" (" .. tai_text(tx) .. ")")
		if tx ~= UInt64(0) then
			t:add(pf.late, tvb(48, 8),
			      tvb(48, 8):int64() - tvb(24, 8):int64())
				:set_generated()
		end
	end
	for i = 0, 3 do
		local off = 56 + 8 * i
		if has(off, 8) then
			t:add(pf.tp[i], tvb(off, 8)):append_text(
				" (" .. tai_text(tvb(off, 8):uint64()) .. ")")
		end
	end

	-- An ICMP echo's checksum is the icmp dissector's to verify.
	local udp_status
	if not icmp then
		local udp_want
		udp_status, udp_want = udp_checksum(tvb, pinfo)
		if udp_want then
			t:add(pf.udp_computed, udp_want):set_generated()
		end
		local ui = t:add(pf.udp_status, udp_status):set_generated()
		if udp_status == ST_BAD then
			ui:add_proto_expert_info(ex.udp_bad)
		elseif udp_status == ST_ILLEGAL then
			ui:add_proto_expert_info(ex.udp_bad,
						 "Zero UDP checksum over IPv6")
		elseif udp_status == ST_NOT_PRESENT then
			ui:add_proto_expert_info(ex.udp_absent)
		end
	end

	local ctrl = bit32.band(flags, F_CTRL) ~= 0
	local info = string.format("%sTG %s seq %s run %s",
				   ctrl and "Control " or "",
				   has(12, 4) and tvb(12, 4):uint() or "?",
				   has(16, 8) and tostring(tvb(16, 8):uint64())
					or "?",
				   has(8, 4) and tvb(8, 4):uint() or "?")
	local text = ctrl and n > HDR_LEN and cap == n and
		tvb:raw(HDR_LEN, n - HDR_LEN)
	if text and printable(text) then
		info = info .. ' "' .. text .. '"'
	end
	if magic ~= MAGIC then
		info = info .. " [bad magic]"
	end
	if crc_status == ST_BAD then
		info = info .. " [bad header CRC]"
	end
	if udp_status == ST_BAD or udp_status == ST_ILLEGAL then
		info = info .. " [bad UDP checksum]"
	end
	pinfo.cols.info = info
	t:append_text(", " .. info)
	if ctrl then
		t:add_proto_expert_info(ex.ctrl)
	end
	if cap > HDR_LEN then
		local di = t:add(ctrl and pf.ctrl_data or pf.payload, tvb(HDR_LEN))
		if text and printable(text) then
			di:append_text(' "' .. text .. '"')
		end
	end
	if cap < n then
		cut_short(t, tvb)
	end
	return n
end

function mtg.dissector(tvb, pinfo, tree)
	return dissect(tvb, pinfo, tree)
end

local function heuristic(tvb, pinfo, tree)
	if tvb:captured_len() < 4 or tvb:reported_len() < HDR_LEN or
	   tvb(0, 4):uint() ~= MAGIC then
		return false
	end
	dissect(tvb, pinfo, tree)
	return true
end

mtg:register_heuristic("udp", heuristic)

local function heuristic_icmp(tvb, pinfo, tree)
	if tvb:captured_len() < 4 or tvb:reported_len() < HDR_LEN or
	   tvb(0, 4):uint() ~= MAGIC then
		return false
	end
	dissect(tvb, pinfo, tree, true)
	return true
end

mtg:register_heuristic("icmp", heuristic_icmp)
mtg:register_heuristic("icmpv6", heuristic_icmp)

-- A TCP TG's stream (Documentation/abi.rst, "TGs over a connection"):
-- messages, each after its length in 2 bytes, the MTG header first.
local MSG_PREFIX = 2

local function tcp_message_len(tvb, pinfo, off)
	return MSG_PREFIX + tvb(off, MSG_PREFIX):uint()
end

local function dissect_tcp_message(tvb, pinfo, tree)
	tree:add(pf.msg_len, tvb(0, MSG_PREFIX))
	dissect(tvb(MSG_PREFIX):tvb(), pinfo, tree, true)
	return tvb:reported_len()
end

local function heuristic_tcp(tvb, pinfo, tree)
	if tvb:captured_len() < MSG_PREFIX + 4 or
	   tvb(0, MSG_PREFIX):uint() < HDR_LEN or
	   tvb(MSG_PREFIX, 4):uint() ~= MAGIC then
		return false
	end
	dissect_tcp_pdus(tvb, tree, MSG_PREFIX, tcp_message_len,
			 dissect_tcp_message, true)
	return true
end

mtg:register_heuristic("tcp", heuristic_tcp)

-- proto in the port table (and in Decode As), on the ports of its range
-- preference pref, following the preference's changes.
local function on_ports(proto, table_name, pref)
	local ports_table = DissectorTable.get(table_name)
	local ports = ""
	local function follow()
		local want = tostring(proto.prefs[pref])
		if want == ports then
			return
		end
		if ports ~= "" then
			ports_table:remove(ports, proto)
		end
		if want ~= "" then
			ports_table:add(want, proto)
		end
		ports = want
	end
	ports_table:add_for_decode_as(proto)
	follow()
	proto.prefs_changed = follow
end

on_ports(mtg, "udp.port", "udp_ports")

------------------------------------------------------------------------------
-- TSP, the signalling between a sender and a remote receiver over TCP
-- (Documentation/tsp.rst; ctl/tsp/codec.c is the layouts' one definition,
-- which this follows field by field). Protocol "mtgtsp", on the TCP ports
-- of the preference mtgtsp.tcp_ports (9000, mtgctl recv's and ITGRecv's
-- default). The stream is cut into messages here (TCP reassembly: several
-- messages in a segment, one message across segments): mtg's own messages
-- by their length field, D-ITG's by their type (and, for two types, by
-- the IP version or family inside and the end that sends them).
-- tests/host/test_wireshark_tsp.py checks every field against ctl/tsp's
-- decoder, message by message.
------------------------------------------------------------------------------

local tsp = Proto("mtgtsp", "mtg TSP signalling")

local TSP_MARKER = 0x4d                 -- 'M', an mtg frame's second byte
local TSP_FRAME_HDR = 6                 -- type, marker, body length (u32)
local TSP_MAX_TEXT = 256
local TSP_MAX_TG_JSON = 65536
local TSP_LOG_NAME_MAX = 64             -- a log's host name, bytes
local TSP_MAX_LOG_META = 65536          -- a log's recording metadata
local TSP_LOG_REC = 96                  -- a record in a batch
local TSP_LOG_BATCH_MAX = 512           -- records in a batch
local TSP_LOG_OPEN_MAX = 12 + TSP_LOG_NAME_MAX + TSP_MAX_LOG_META
local TSP_MAX_BODY = TSP_LOG_OPEN_MAX   -- the largest body of any type
local TSP_JOB_IDF_MAX = 16777216        -- a part's IDF, bytes
local TSP_JOB_SUMMARY_MAX = 67108864    -- a part's summary, bytes
local TSP_JOB_CHUNK = 16384             -- bytes of a TSP_JOB_DATA
local TSP_JOB_ROWS = 256                -- rows of a TSP_JOB_PROGRESS
local TSP_JOB_ROW = 32

local tsp_types = {
	[1] = "TSP_CONNECT", [2] = "TSP_ACK_CONNECT", [3] = "TSP_SEND_FLOW",
	[4] = "TSP_CLOSED_FLOW", [5] = "TSP_ACK_SEND_FLOW",
	[6] = "TSP_ACK_CLOSED_FLOW", [7] = "TSP_ACK_RELEASE",
	[8] = "TSP_DISCOVERY", [9] = "TSP_ACK_DISCOVERY",
	[10] = "TSP_CRYPTO_RSA", [11] = "TSP_RELEASE",
	[12] = "TSP_SEND_FLOW_LOG", [13] = "TSP_ACK_SEND_FLOW_LOG",
	[14] = "TSP_ERR_MSG_1", [15] = "TSP_ERR_MSG_2", [16] = "TSP_ERR_MSG_3",
	[17] = "TSP_CLOSED_ERR", [18] = "TSP_ACK_SEND_NAME_LOG",
	[19] = "TSP_SEND_NAME_LOG", [20] = "TSP_SENDER_DOWN",
	[21] = "TSP_ERR_MSG_4", [22] = "TSP_ERR_MSG_5",
	[0x80] = "TSP_HELLO", [0x81] = "TSP_CHALLENGE", [0x82] = "TSP_AUTH",
	[0x83] = "TSP_AUTH_OK", [0x84] = "TSP_FLOW_REQ",
	[0x85] = "TSP_FLOW_ACK", [0x86] = "TSP_RESULT", [0x87] = "TSP_ERROR",
	[0x88] = "TSP_START", [0x89] = "TSP_TIME_REQ",
	[0x8a] = "TSP_TIME_RESP", [0x8b] = "TSP_LOG_OPEN",
	[0x8c] = "TSP_LOG_ACK", [0x8d] = "TSP_LOG_BATCH",
	[0x8e] = "TSP_LOG_CLOSE", [0x8f] = "TSP_LOG_DONE",
	[0x90] = "TSP_JOB_OFFER", [0x91] = "TSP_JOB_DATA",
	[0x92] = "TSP_JOB_READY", [0x93] = "TSP_JOB_START",
	[0x94] = "TSP_JOB_PROGRESS", [0x95] = "TSP_JOB_END",
	[0x96] = "TSP_JOB_DROP",
}

-- Which end sends each type (ctl/tsp/names.c, tsp_senders): S, R or both.
-- 5 comes from the sender in D-ITG's passive mode only; a log server's
-- client (mtgctl logd's) is the sender.
local S, R, SR = 1, 2, 3
local tsp_from = {
	[1] = S, [2] = R, [3] = S, [4] = S, [5] = SR, [6] = R, [7] = R,
	[8] = R, [9] = S, [11] = S, [12] = S, [13] = R, [14] = S, [15] = R,
	[16] = R, [17] = S, [18] = R, [19] = S, [21] = R, [22] = R,
	[0x80] = SR, [0x81] = R, [0x82] = S, [0x83] = R, [0x84] = S,
	[0x85] = R, [0x86] = R, [0x87] = SR, [0x88] = S, [0x89] = S,
	[0x8a] = R, [0x8b] = S, [0x8c] = R, [0x8d] = S, [0x8e] = S,
	[0x8f] = R, [0x90] = S, [0x91] = SR, [0x92] = R, [0x93] = S,
	[0x94] = R, [0x95] = R, [0x96] = S,
}

-- The bounds of an mtg frame's body (ctl/tsp/decode.c, mtg_body).
local tsp_body = {
	[0x80] = { 16, 16 }, [0x81] = { 36, 36 }, [0x82] = { 64, 64 },
	[0x83] = { 32, 32 }, [0x84] = { 60, 60 + TSP_MAX_TG_JSON },
	[0x85] = { 10, 10 + TSP_MAX_TEXT }, [0x86] = { 96, 96 },
	[0x87] = { 6, 6 + TSP_MAX_TEXT }, [0x88] = { 28, 28 },
	[0x89] = { 8, 8 }, [0x8a] = { 24, 24 },
	[0x8b] = { 14, TSP_LOG_OPEN_MAX }, [0x8c] = { 6, 6 },
	[0x8d] = { 24 + TSP_LOG_REC, 24 + TSP_LOG_REC * TSP_LOG_BATCH_MAX },
	[0x8e] = { 40, 40 }, [0x8f] = { 34, 34 + TSP_MAX_TEXT },
	[0x90] = { 13, 10 + TSP_LOG_NAME_MAX + 2 + TSP_MAX_TEXT },
	[0x91] = { 9, 8 + TSP_JOB_CHUNK }, [0x92] = { 8, 8 },
	[0x93] = { 12, 12 }, [0x94] = { 16, 16 + TSP_JOB_ROW * TSP_JOB_ROWS },
	[0x95] = { 14, 14 + TSP_MAX_TEXT }, [0x96] = { 6, 6 + TSP_MAX_TEXT },
}

-- D-ITG's two types whose size a field says: its place and bytes, the
-- message's size for each value it may have.
local tsp_sized_by = {
	[3] = { field = "l3_proto", at = 5, n = 1,
		sizes = { [4] = 27, [6] = 39 } },
	[12] = { field = "family", at = 1, n = 4,
		 sizes = { [2] = 212, [10] = 224 } },
}

-- D-ITG's messages with a flow id after the type byte alone.
local tsp_fid_only = { [4] = true, [6] = true, [15] = true, [16] = true,
		       [17] = true, [22] = true }

local l4_names = { [1] = "TCP", [2] = "UDP", [3] = "ICMP", [4] = "SCTP",
		   [5] = "DCCP" }
local l7_names = { [0] = "none", [1] = "Telnet", [2] = "VoIP", [3] = "DNS",
		   [4] = "AoM", [5] = "CSa", [6] = "CSi", [7] = "Quake3" }
local meter_names = { [1] = "one-way (OWDM)", [2] = "round trip (RTTM)" }
local pl_names = { [0] = "standard", [1] = "short", [2] = "none" }
local family_names = { [2] = "AF_INET", [10] = "AF_INET6" }
local refusal_names = {
	[0] = "accepted", [1] = "address", [2] = "port", [3] = "rate",
	[4] = "protocol", [5] = "busy", [6] = "flow-id", [7] = "auth",
	[8] = "bind", [9] = "tg",
}
local error_names = {
	[1] = "version", [2] = "auth-failed", [3] = "auth-replay",
	[4] = "auth-expired", [5] = "auth-required", [6] = "malformed",
	[7] = "unexpected", [8] = "internal", [9] = "refused",
}
local transport_names = { [1] = "TCP", [2] = "UDP" }
local kind_names = { [1] = "the IDF", [2] = "the summary" }
local state_names = { [0] = "waiting", [1] = "running", [2] = "suspended",
		      [3] = "done", [4] = "killed", [5] = "error" }

local tf = {
	type = ProtoField.uint8("mtgtsp.type", "Type", base.HEX, tsp_types),
	from = ProtoField.string("mtgtsp.from", "From"),
	marker = ProtoField.uint8("mtgtsp.marker", "Marker", base.HEX),
	len = ProtoField.uint32("mtgtsp.len", "Body length", base.DEC),
	flow = ProtoField.uint32("mtgtsp.flow", "Flow id", base.DEC),
	run = ProtoField.uint32("mtgtsp.run", "Run", base.DEC),
	-- TSP_SEND_FLOW (D-ITG) and TSP_FLOW_REQ (mtg)
	l4_proto = ProtoField.uint8("mtgtsp.l4_proto", "L4 protocol",
				    base.DEC, l4_names),
	l7_proto = ProtoField.uint8("mtgtsp.l7_proto", "L7 protocol",
				    base.DEC, l7_names),
	meter = ProtoField.uint8("mtgtsp.meter", "Meter", base.DEC,
				 meter_names),
	ds_byte = ProtoField.uint8("mtgtsp.ds_byte", "DS byte", base.HEX),
	l3_proto = ProtoField.uint8("mtgtsp.l3_proto", "IP version", base.DEC),
	payload_type = ProtoField.uint8("mtgtsp.payload_type",
					"Payload log type", base.DEC, pl_names),
	serial = ProtoField.stringz("mtgtsp.serial", "Serial interface"),
	passive_port = ProtoField.uint16("mtgtsp.passive_port",
					 "Sender's data port (passive)",
					 base.DEC),
	src_specified = ProtoField.uint8("mtgtsp.src_specified",
					 "Source address given (passive)",
					 base.HEX),
	port = ProtoField.uint16("mtgtsp.port", "Data port", base.DEC),
	addr = ProtoField.ipv4("mtgtsp.addr", "Data destination"),
	addr6 = ProtoField.ipv6("mtgtsp.addr6", "Data destination"),
	-- TSP_SEND_FLOW_LOG and TSP_SEND_NAME_LOG
	log_family = ProtoField.uint32("mtgtsp.log.family",
				       "Log server's address family",
				       base.DEC, family_names),
	log_addr = ProtoField.ipv4("mtgtsp.log.addr", "Log server"),
	log_addr6 = ProtoField.ipv6("mtgtsp.log.addr6", "Log server"),
	log_port = ProtoField.uint16("mtgtsp.log.port", "Log server's port",
				     base.DEC),
	log_proto = ProtoField.uint8("mtgtsp.log.proto", "Log protocol",
				     base.DEC, l4_names),
	log_name = ProtoField.stringz("mtgtsp.log.name",
				      "Log name (D-ITG: its file; mtg: the host)"),
	-- the log server's (mtgctl logd): TSP_LOG_OPEN .. TSP_LOG_DONE
	log_run = ProtoField.uint32("mtgtsp.log.run",
				    "Run logged (0: every run)", base.DEC),
	log_transport = ProtoField.uint8("mtgtsp.log.transport",
					 "Batches over", base.DEC,
					 transport_names),
	log_name_len = ProtoField.uint16("mtgtsp.log.name_len",
					 "Host name length", base.DEC),
	log_meta_len = ProtoField.uint32("mtgtsp.log.meta_len",
					 "Metadata length", base.DEC),
	log_meta = ProtoField.string("mtgtsp.log.meta",
				     "Recording's metadata (JSON)",
				     base.UNICODE),
	log_id = ProtoField.uint32("mtgtsp.log.log_id", "Log id", base.DEC),
	log_udp_port = ProtoField.uint16("mtgtsp.log.udp_port",
					 "UDP port for the batches (0: TCP)",
					 base.DEC),
	log_seq = ProtoField.uint64("mtgtsp.log.seq", "Batch number",
				    base.DEC),
	log_first = ProtoField.uint64("mtgtsp.log.first",
				      "First record's number", base.DEC),
	log_count = ProtoField.uint16("mtgtsp.log.count", "Records",
				      base.DEC),
	log_recs = ProtoField.bytes("mtgtsp.log.recs",
				    "Records (96 bytes each)"),
	log_records = ProtoField.uint64("mtgtsp.log.records",
					"Records (CLOSE: sent; DONE: written)",
					base.DEC),
	log_batches = ProtoField.uint64("mtgtsp.log.batches", "Batches sent",
					base.DEC),
	log_not_sent = ProtoField.uint64("mtgtsp.log.not_sent",
					 "Records never sent", base.DEC),
	log_ring_drops = ProtoField.uint64("mtgtsp.log.ring_drops",
					   "Ring drops", base.DEC),
	log_end_ns = ProtoField.uint64("mtgtsp.log.end_ns",
				       "End (ns, TAI)", base.DEC),
	log_lost = ProtoField.uint64("mtgtsp.log.lost",
				     "Records lost", base.DEC),
	log_batches_lost = ProtoField.uint64("mtgtsp.log.batches_lost",
					     "Batches lost", base.DEC),
	log_late = ProtoField.uint64("mtgtsp.log.late",
				     "Late datagrams (not written)",
				     base.DEC),
	log_file = ProtoField.string("mtgtsp.log.file",
				     "File in the server's directory",
				     base.UNICODE),
	-- mtg's
	hello = ProtoField.string("mtgtsp.hello", "Hello"),
	hello_major = ProtoField.uint16("mtgtsp.hello.major", "Major version",
					base.DEC),
	hello_minor = ProtoField.uint16("mtgtsp.hello.minor", "Minor version",
					base.DEC),
	hello_magic = ProtoField.string("mtgtsp.hello.magic", "Magic"),
	hello_role = ProtoField.string("mtgtsp.hello.role", "Role"),
	nonce = ProtoField.bytes("mtgtsp.nonce", "Nonce"),
	lifetime_ms = ProtoField.uint32("mtgtsp.lifetime_ms",
					"Challenge lifetime (ms)", base.DEC),
	mac = ProtoField.bytes("mtgtsp.mac", "Proof (HMAC-SHA-256)"),
	src_port = ProtoField.uint16("mtgtsp.src_port", "Data source port",
				     base.DEC),
	reserved = ProtoField.uint32("mtgtsp.reserved", "Reserved", base.HEX),
	bit_rate = ProtoField.uint64("mtgtsp.bit_rate", "Mean rate (bit/s)",
				     base.DEC),
	pkt_rate_milli = ProtoField.uint64("mtgtsp.pkt_rate_milli",
					   "Packet rate (per 1000 s)",
					   base.DEC),
	duration_ns = ProtoField.uint64("mtgtsp.duration_ns",
					"Duration (ns, 0: until closed)",
					base.DEC),
	tg_json_len = ProtoField.uint32("mtgtsp.tg_json_len",
					"TG description length", base.DEC),
	tg_json = ProtoField.string("mtgtsp.tg_json", "TG description (JSON)",
				    base.UNICODE),
	refusal = ProtoField.uint16("mtgtsp.refusal", "Answer", base.DEC,
				    refusal_names),
	text_len = ProtoField.uint16("mtgtsp.text_len", "Text length",
				     base.DEC),
	reason = ProtoField.string("mtgtsp.reason", "Reason", base.UNICODE),
	flags = ProtoField.uint32("mtgtsp.flags", "Flags", base.HEX),
	flag_incomplete = ProtoField.bool("mtgtsp.flags.incomplete",
					  "Incomplete", 32, nil, 0x1),
	flag_no_owd = ProtoField.bool("mtgtsp.flags.no_owd",
				      "No one-way delay", 32, nil, 0x2),
	received = ProtoField.uint64("mtgtsp.received", "Received", base.DEC),
	lost = ProtoField.uint64("mtgtsp.lost", "Lost", base.DEC),
	duplicates = ProtoField.uint64("mtgtsp.duplicates", "Duplicates",
				       base.DEC),
	reordered = ProtoField.uint64("mtgtsp.reordered", "Reordered",
				      base.DEC),
	bytes = ProtoField.uint64("mtgtsp.bytes", "Bytes", base.DEC),
	owd_min_ns = ProtoField.int64("mtgtsp.owd_min_ns",
				      "One-way delay, min (ns)", base.DEC),
	owd_mean_ns = ProtoField.int64("mtgtsp.owd_mean_ns",
				       "One-way delay, mean (ns)", base.DEC),
	owd_max_ns = ProtoField.int64("mtgtsp.owd_max_ns",
				      "One-way delay, max (ns)", base.DEC),
	jitter_ns = ProtoField.uint64("mtgtsp.jitter_ns", "Jitter (ns)",
				      base.DEC),
	first_rx_ns = ProtoField.uint64("mtgtsp.first_rx_ns",
					"First received (ns, TAI)", base.DEC),
	last_rx_ns = ProtoField.uint64("mtgtsp.last_rx_ns",
				       "Last received (ns, TAI)", base.DEC),
	error = ProtoField.uint16("mtgtsp.error", "Error", base.DEC,
				  error_names),
	about = ProtoField.uint8("mtgtsp.about", "About", base.HEX, tsp_types),
	text = ProtoField.string("mtgtsp.text", "Text", base.UNICODE),
	start_ns = ProtoField.uint64("mtgtsp.start_ns", "T0 (ns, TAI)",
				     base.DEC),
	offset_ns = ProtoField.int64("mtgtsp.offset_ns",
				     "Receiver's clock offset (ns)", base.DEC),
	uncertainty_ns = ProtoField.uint64("mtgtsp.uncertainty_ns",
					   "Offset uncertainty (ns)",
					   base.DEC),
	t1 = ProtoField.uint64("mtgtsp.t1", "t1, sender's (ns, TAI)",
			       base.DEC),
	t2 = ProtoField.uint64("mtgtsp.t2", "t2, receiver's in (ns, TAI)",
			       base.DEC),
	t3 = ProtoField.uint64("mtgtsp.t3", "t3, receiver's out (ns, TAI)",
			       base.DEC),
	trailing = ProtoField.bytes("mtgtsp.trailing",
				    "Bytes after the fields"),
	data = ProtoField.bytes("mtgtsp.data", "Undissected bytes"),
	-- the manager's and daemons' (mtgctl manage, mtgctl daemon)
	job_idf_len = ProtoField.uint32("mtgtsp.job.idf_len", "IDF length",
					base.DEC),
	job_host_len = ProtoField.uint16("mtgtsp.job.host_len",
					 "Host name length", base.DEC),
	job_host = ProtoField.string("mtgtsp.job.host", "Host"),
	job_file = ProtoField.string("mtgtsp.job.file", "File", base.UNICODE),
	job_kind = ProtoField.uint8("mtgtsp.job.kind", "Piece of", base.DEC,
				    kind_names),
	job_offset = ProtoField.uint32("mtgtsp.job.offset",
				       "Piece's offset", base.DEC),
	job_len = ProtoField.uint16("mtgtsp.job.len", "Piece's length",
				    base.DEC),
	job_data = ProtoField.bytes("mtgtsp.job.data", "Piece"),
	job_tgs = ProtoField.uint32("mtgtsp.job.tgs", "The host's TGs",
				    base.DEC),
	job_elapsed_ns = ProtoField.uint64("mtgtsp.job.elapsed_ns",
					   "Since T0 (ns)", base.DEC),
	job_count = ProtoField.uint16("mtgtsp.job.count", "Rows", base.DEC),
	job_row = ProtoField.bytes("mtgtsp.job.row", "Row"),
	job_row_tgid = ProtoField.uint32("mtgtsp.job.row.tgid", "TG",
					 base.DEC),
	job_row_state = ProtoField.uint8("mtgtsp.job.row.state", "State",
					 base.DEC, state_names),
	job_row_reserved = ProtoField.uint24("mtgtsp.job.row.reserved",
					     "Reserved", base.HEX),
	job_row_sent = ProtoField.uint64("mtgtsp.job.row.sent", "Sent",
					 base.DEC),
	job_row_bytes = ProtoField.uint64("mtgtsp.job.row.bytes", "Bytes",
					  base.DEC),
	job_row_late = ProtoField.uint64("mtgtsp.job.row.late",
					 "Lateness p99 (ns; 2^64-1: none)",
					 base.DEC),
	job_status = ProtoField.uint8("mtgtsp.job.status",
				      "Run's exit status", base.DEC),
	job_flags = ProtoField.uint8("mtgtsp.job.flags", "Flags", base.HEX),
	job_killed = ProtoField.bool("mtgtsp.job.flags.killed",
				     "Ended by the daemon", 8, nil, 0x1),
	job_summary_len = ProtoField.uint32("mtgtsp.job.summary_len",
					    "Summary length", base.DEC),
	job_why = ProtoField.string("mtgtsp.job.why", "Why", base.UNICODE),
}
local tsp_fields = {}
for _, v in pairs(tf) do
	tsp_fields[#tsp_fields + 1] = v
end
tsp.fields = tsp_fields

local tx = {
	unknown_type = ProtoExpert.new("mtgtsp.unknown_type",
		"Not a TSP message type: the stream cannot be followed",
		expert.group.MALFORMED, expert.severity.ERROR),
	wrong_end = ProtoExpert.new("mtgtsp.wrong_end",
		"A message type the other end sends",
		expert.group.PROTOCOL, expert.severity.ERROR),
	bad_length = ProtoExpert.new("mtgtsp.bad_length",
		"Length outside the type's bounds or not its fields' bytes",
		expert.group.MALFORMED, expert.severity.ERROR),
	bad_value = ProtoExpert.new("mtgtsp.bad_value",
		"Value outside its field's range",
		expert.group.MALFORMED, expert.severity.ERROR),
	ditg = ProtoExpert.new("mtgtsp.ditg",
		"D-ITG's opening (TSP_CONNECT): a D-ITG sender; mtgctl recv "
		.. "closes the connection", expert.group.SEQUENCE,
		expert.severity.NOTE),
	refused = ProtoExpert.new("mtgtsp.refused", "Flow refused",
		expert.group.RESPONSE_CODE, expert.severity.WARN),
	error = ProtoExpert.new("mtgtsp.error_sent", "Error reported",
		expert.group.RESPONSE_CODE, expert.severity.WARN),
	cut = ProtoExpert.new("mtgtsp.cut_short",
		"The capture kept less than the message",
		expert.group.MALFORMED, expert.severity.WARN),
}
tsp.experts = { tx.unknown_type, tx.wrong_end, tx.bad_length, tx.bad_value,
		tx.ditg, tx.refused, tx.error, tx.cut }

tsp.prefs.tcp_ports = Pref.range("TCP ports", "9000",
	"TCP ports of TSP receivers (mtgctl recv --port, ITGRecv -Sp); "
	.. "the end on such a port is the receiver", 65535)
tsp.prefs.ditg_passive = Pref.bool("D-ITG passive mode", false,
	"The D-ITG senders run in passive mode (ITGSend -H): their "
	.. "TSP_SEND_FLOW has 3 more bytes, and they send TSP_ACK_SEND_FLOW")

local f_tcp_srcport = Field.new("tcp.srcport")
local f_tcp_dstport = Field.new("tcp.dstport")

-- "9000,9003-9005" holds port?
local function in_range(spec, port)
	for part in tostring(spec):gmatch("[^,%s]+") do
		local lo, hi = part:match("^(%d+)%-(%d+)$")
		lo = tonumber(lo or part)
		hi = tonumber(hi or part)
		if lo and hi and port >= lo and port <= hi then
			return true
		end
	end
	return false
end

-- Did the receiver send this segment? The end on a port of the
-- preference is the receiver; else (Decode As) the port the TCP port
-- table matched.
local function from_receiver(pinfo)
	local sport, dport = last(f_tcp_srcport), last(f_tcp_dstport)
	sport = sport and sport.value or pinfo.src_port
	dport = dport and dport.value or pinfo.dst_port
	local s = in_range(tsp.prefs.tcp_ports, sport)
	local d = in_range(tsp.prefs.tcp_ports, dport)
	if s ~= d then
		return s
	end
	return sport == pinfo.match_uint
end

-- A message's length from its first bytes (avail of them at off):
-- the length; or nil and the bytes needed to know it; or false and why
-- the stream cannot be cut further.
local function tsp_pdu_len(tvb, off, avail, rcvr)
	local t = tvb(off, 1):uint()
	if t >= 0x80 and t <= 0xbf then
		if avail < TSP_FRAME_HDR then
			return nil, TSP_FRAME_HDR
		end
		if tvb(off + 1, 1):uint() ~= TSP_MARKER then
			return false, "marker"
		end
		-- a type's bounds, as ctl/tsp checks them before it holds a
		-- byte; a type kept for later ones framed by its length
		local len = tvb(off + 2, 4):uint()
		local b = tsp_body[t] or { 0, TSP_MAX_BODY }
		if len < b[1] or len > b[2] then
			return false, "length"
		end
		return TSP_FRAME_HDR + len
	end
	local by = tsp_sized_by[t]
	if by then
		if avail < by.at + by.n then
			return nil, by.at + by.n
		end
		local size = by.sizes[tvb(off + by.at, by.n):uint()]
		if not size then
			return false, by.field
		end
		if t == 3 and not rcvr and tsp.prefs.ditg_passive then
			size = size + 3         -- passive_port, src_specified
		end
		return size
	end
	if t == 5 then
		return rcvr and 7 or 5
	end
	if t == 19 then
		return 201
	end
	if tsp_fid_only[t] then
		return 5
	end
	if tsp_from[t] then
		return 1
	end
	return false, "type"
end

-- The message being dissected has an error (" [malformed]" in Info).
local malformed = false

local function flag(item, ex, text)
	item:add_proto_expert_info(ex, text)
	malformed = true
end

-- The fields of one message, in order, through a cursor over its bytes:
-- c.tvb, c.off (the next field), c.stop (the message's or frame's end),
-- c.t (its tree); c.bad once a field did not fit (flagged once).
local function take(c, n, name)
	if c.bad then
		return nil
	end
	if c.off + n > c.stop then
		c.bad = true
		flag(c.t, tx.bad_length, string.format(
			"%s needs %d byte%s, only %d left in the frame", name,
			n, n == 1 and "" or "s", c.stop - c.off))
		return nil
	end
	local r = c.tvb(c.off, n)
	c.off = c.off + n
	return r
end

local function field(c, f, n, name, enc)
	local r = take(c, n, name)
	if not r then
		return nil
	end
	return c.t:add_packet_field(f, r, enc or ENC_BIG_ENDIAN), r
end

local function bad_value(item, fmt, ...)
	flag(item, tx.bad_value, string.format(fmt, ...))
end

-- An unsigned field whose value must pass ok (else "V is not what
-- (values)"): its value, or nil.
local function checked(c, f, n, name, ok, what, values)
	local item, r = field(c, f, n, name)
	if not item then
		return nil
	end
	local v = r:uint()
	if not ok(v) then
		bad_value(item, "%d is not %s (%s)", v, what, values)
	end
	return v
end

-- within lo..hi
local function ranged(c, f, n, name, lo, hi, what)
	return checked(c, f, n, name, function(v)
		return v >= lo and v <= hi
	end, what, lo .. ".." .. hi)
end

-- a or b
local function either(c, f, n, name, a, b, what)
	return checked(c, f, n, name, function(v)
		return v == a or v == b
	end, what, a .. " or " .. b)
end

-- An address of the IP version l3 (4 or 6) in n bytes: IPv4 in the first
-- 4 (those after it must be zero), IPv6 in 16.
local function address(c, f4, f6, n, l3)
	if l3 == 6 then
		local item, r = field(c, f6, 16, "addr")
		return item and tostring(r:ipv6()) or "?"
	end
	local item, r = field(c, f4, 4, "addr")
	if not item then
		return "?"
	end
	if n > 4 then
		local rest = take(c, n - 4, "addr")
		if rest and rest:bytes() ~= ByteArray.new(string.rep("00 ",
							      n - 4)) then
			bad_value(item, "an IPv4 address with bytes beyond "
				  .. "its 4")
		end
	end
	return tostring(r:ipv4())
end

-- D-ITG's fixed-size names: NUL-terminated within their n bytes.
local function name(c, f, n, label)
	local item, r = field(c, f, n, label, ENC_ASCII)
	if item and not r:raw():find("\0", 1, true) then
		bad_value(item, "no NUL ends the name in its bytes")
	end
	return item and r:stringz() or ""
end

-- UTF-8 without NUL or (allow_ctl false) control characters: the byte
-- (from 0) where s stops being so, or nil.
local function not_utf8(s, allow_ctl)
	local i, n = 1, #s
	while i <= n do
		local b = s:byte(i)
		local len = b < 0x80 and 1 or (b >= 0xc2 and b <= 0xdf) and 2 or
			(b >= 0xe0 and b <= 0xef) and 3 or
			(b >= 0xf0 and b <= 0xf4) and 4 or 0
		if len == 0 or b == 0 or i + len - 1 > n then
			return i - 1
		end
		if not allow_ctl and (b < 0x20 or b == 0x7f) then
			return i - 1
		end
		for k = i + 1, i + len - 1 do
			local cb = s:byte(k)
			if cb < 0x80 or cb > 0xbf then
				return i - 1
			end
		end
		if len == 3 then
			local b2 = s:byte(i + 1)
			if (b == 0xe0 and b2 < 0xa0) or
			   (b == 0xed and b2 > 0x9f) then
				return i - 1
			end
		elseif len == 4 then
			local b2 = s:byte(i + 1)
			if (b == 0xf0 and b2 < 0x90) or
			   (b == 0xf4 and b2 > 0x8f) then
				return i - 1
			end
		end
		if len == 2 and b == 0xc2 and s:byte(i + 1) < 0xa0 and
		   not allow_ctl then
			return i - 1            -- a C1 control character
		end
		i = i + len
	end
	return nil
end

-- text_len (u16, at most max) and that many bytes of UTF-8 text.
local function text(c, f, label, max, allow_ctl)
	local li, lr = field(c, tf.text_len, 2, "text_len")
	if not li then
		return ""
	end
	local n = lr:uint()
	if n > max then
		flag(li, tx.bad_length, string.format(
			"%d bytes, over the %d a text may have", n, max))
		c.bad = true
		return ""
	end
	if n == 0 then
		c.t:add(f, lr, "")          -- empty: shown on its length
		return ""
	end
	local item, r = field(c, f, n, label, ENC_UTF_8)
	if not item then
		return ""
	end
	local at = not_utf8(r:raw(), allow_ctl)
	if at then
		bad_value(item, "byte %d: %s", at, allow_ctl and
			  "a NUL or a byte that is not UTF-8" or
			  "a control character or a byte that is not UTF-8")
	end
	return r:string(ENC_UTF_8)      -- for the Info column: valid UTF-8
end

local function u64(c, f, label, enc)
	local item, r = field(c, f, 8, label, enc)
	return item and r
end

local function dissect_send_flow(c, info, rcvr)
	ranged(c, tf.l4_proto, 1, "l4_proto", 1, 5, "a D-ITG L4 protocol")
	ranged(c, tf.l7_proto, 1, "l7_proto", 0, 7, "a D-ITG L7 protocol")
	ranged(c, tf.meter, 1, "meter", 1, 2, "a D-ITG meter")
	field(c, tf.ds_byte, 1, "ds_byte")
	local l3 = either(c, tf.l3_proto, 1, "l3_proto", 4, 6,
			  "an IP version")
	local _, fr = field(c, tf.flow, 4, "flow_id")
	ranged(c, tf.payload_type, 1, "payload_type", 0, 2,
	       "a D-ITG payload log type")
	field(c, tf.serial, 10, "serial", ENC_ASCII)
	if not rcvr and tsp.prefs.ditg_passive then
		field(c, tf.passive_port, 2, "passive_port", ENC_LITTLE_ENDIAN)
		either(c, tf.src_specified, 1, "src_specified", 0, 0xff,
		       "a flag")
	end
	local _, pr = field(c, tf.port, 2, "port", ENC_LITTLE_ENDIAN)
	local a = address(c, tf.addr, tf.addr6, l3 == 6 and 16 or 4, l3)
	if fr and pr then
		info[#info + 1] = string.format("flow %d to %s port %d",
						fr:uint(), a, pr:le_uint())
	end
end

local function dissect_flow_log(c, info)
	local family = either(c, tf.log_family, 4, "family", 2, 10,
			      "an address family")
	local a = address(c, tf.log_addr, tf.log_addr6,
			  family == 2 and 4 or 16, family == 10 and 6 or 4)
	field(c, tf.log_port, 2, "port")
	ranged(c, tf.log_proto, 1, "log_proto", 1, 2, "TCP or UDP")
	info[#info + 1] = "log server " .. a .. " " ..
		name(c, tf.log_name, 200, "log_name")
end

local function dissect_ditg(c, t, rcvr, info)
	if t == 1 then
		c.t:add_proto_expert_info(tx.ditg)
		info[#info + 1] = "(D-ITG's opening)"
	elseif t == 3 then
		dissect_send_flow(c, info, rcvr)
	elseif t == 5 then
		local _, fr = field(c, tf.flow, 4, "flow_id")
		if rcvr then
			local _, pr = field(c, tf.port, 2, "port")
			if fr and pr then
				info[#info + 1] = string.format(
					"flow %d port %d", fr:uint(),
					pr:uint())
			end
		elseif fr then
			info[#info + 1] = "flow " .. fr:uint()
		end
	elseif t == 12 then
		dissect_flow_log(c, info)
	elseif t == 19 then
		info[#info + 1] = name(c, tf.log_name, 200, "log_name")
	elseif tsp_fid_only[t] then
		local _, fr = field(c, tf.flow, 4, "flow_id")
		if fr then
			info[#info + 1] = "flow " .. fr:uint()
		end
	end
	if t == 14 or t == 15 or t == 16 or t == 17 or t == 21 or
	   t == 22 then
		c.t:add_proto_expert_info(tx.error)
	end
end

-- The hello's "MTG-TSP MMM.mmmR": each part a field.
local function dissect_hello(c, rcvr, info)
	local r = take(c, 16, "hello")
	if not r then
		return
	end
	local hi = c.t:add(tf.hello, r)
	local s = r:raw()
	local mi = hi:add(tf.hello_magic, r(0, 8))
	if s:sub(1, 8) ~= "MTG-TSP " then
		bad_value(mi, "not \"MTG-TSP \"")
	end
	local version = {}
	for k, off in ipairs({ 8, 12 }) do
		local d = s:sub(off + 1, off + 3)
		local f = k == 1 and tf.hello_major or tf.hello_minor
		if d:find("^%d%d%d$") then
			hi:add(f, r(off, 3), tonumber(d))
			version[k] = tonumber(d)
		else
			bad_value(hi, "%s: not three decimal digits",
				  k == 1 and "major" or "minor")
		end
	end
	if s:sub(12, 12) ~= "." then
		bad_value(hi, "not '.' between the versions")
	end
	local role = s:sub(16, 16)
	local ri = hi:add(tf.hello_role, r(15, 1))
	local want = rcvr and "R" or "S"
	if role ~= want then
		bad_value(ri, "not '%s', a %s's", want,
			  rcvr and "receiver" or "sender")
	end
	if version[1] and version[2] then
		info[#info + 1] = string.format("%d.%d", version[1],
						version[2])
	end
end

-- A length (u32, at most max) and that many bytes of UTF-8 without a NUL
-- (a TG's JSON, a log's metadata; ctl/tsp's utf8_blob): the length's item
-- and value, or nil.
local function utf8_blob(c, lf, f, lname, name, max, what)
	local li, lr = field(c, lf, 4, lname)
	if not li then
		return nil
	end
	local n = lr:uint()
	if n > max then
		flag(li, tx.bad_length, string.format(
			"%d bytes, over the %d %s may have", n, max, what))
		c.bad = true
	elseif n == 0 then
		c.t:add(f, lr, "")          -- empty: shown on its length
	else
		local item, r = field(c, f, n, name, ENC_UTF_8)
		local at = item and not_utf8(r:raw(), true)
		if at then
			bad_value(item, "byte %d: a NUL or a byte that is not "
				  .. "UTF-8", at)
		end
	end
	return li, n
end

local function dissect_flow_req(c, info)
	local _, fr = field(c, tf.flow, 4, "flow_id")
	local _, rr = field(c, tf.run, 4, "run_id")
	local l4 = ranged(c, tf.l4_proto, 1, "l4_proto", 1, 5,
			  "a D-ITG L4 protocol")
	local l3 = either(c, tf.l3_proto, 1, "l3_proto", 4, 6,
			  "an IP version")
	local _, pr = field(c, tf.port, 2, "port")
	local a = address(c, tf.addr, tf.addr6, 16, l3)
	field(c, tf.src_port, 2, "src_port")
	ranged(c, tf.reserved, 2, "reserved", 0, 0, "zero")
	u64(c, tf.bit_rate, "bit_rate")
	u64(c, tf.pkt_rate_milli, "pkt_rate_milli")
	u64(c, tf.duration_ns, "duration_ns")
	utf8_blob(c, tf.tg_json_len, tf.tg_json, "tg_json_len", "tg_json",
		  TSP_MAX_TG_JSON, "a TG's JSON")
	if fr and rr and pr then
		info[#info + 1] = string.format("flow %d run %d %s to %s "
			.. "port %d", fr:uint(), rr:uint(),
			l4_names[l4] or "?", a, pr:uint())
	end
end

local function dissect_flow_ack(c, info)
	local _, fr = field(c, tf.flow, 4, "flow_id")
	local code = ranged(c, tf.refusal, 2, "code", 0, 9, "a refusal code")
	local _, pr = field(c, tf.port, 2, "port")
	local reason = text(c, tf.reason, "reason", TSP_MAX_TEXT, false)
	if not (fr and code and pr) then
		return
	end
	if code == 0 then
		info[#info + 1] = string.format("flow %d accepted, port %d",
						fr:uint(), pr:uint())
		return
	end
	local s = string.format("flow %d refused (%s)", fr:uint(),
				refusal_names[code] or tostring(code))
	if reason ~= "" then
		s = s .. ": " .. reason
	end
	c.t:add_proto_expert_info(tx.refused, s)
	info[#info + 1] = s
end

local function dissect_result(c, info)
	local _, fr = field(c, tf.flow, 4, "flow_id")
	local fi, flr = field(c, tf.flags, 4, "flags")
	if fi then
		fi:add(tf.flag_incomplete, flr)
		fi:add(tf.flag_no_owd, flr)
		if bit32.band(flr:uint(), 0xfffffffc) ~= 0 then
			bad_value(fi, "unknown flag bits")
		end
	end
	local rx = u64(c, tf.received, "received")
	local lost = u64(c, tf.lost, "lost")
	for _, f in ipairs({ "duplicates", "reordered", "bytes" }) do
		u64(c, tf[f], f)
	end
	for _, f in ipairs({ "owd_min_ns", "owd_mean_ns", "owd_max_ns" }) do
		u64(c, tf[f], f)
	end
	for _, f in ipairs({ "jitter_ns", "first_rx_ns", "last_rx_ns" }) do
		u64(c, tf[f], f)
	end
	if fr and rx and lost then
		info[#info + 1] = string.format("flow %d: %s received, %s lost",
			fr:uint(), tostring(rx:uint64()),
			tostring(lost:uint64()))
	end
end

local function dissect_error(c, info)
	local code = ranged(c, tf.error, 2, "code", 1, 9, "an error code")
	local ai, ar = field(c, tf.about, 1, "about")
	if ai and ar:uint() ~= 0 and not tsp_types[ar:uint()] then
		bad_value(ai, "not 0 nor a message's type")
	end
	ranged(c, tf.reserved, 1, "reserved", 0, 0, "zero")
	local s = text(c, tf.text, "text", TSP_MAX_TEXT, false)
	if code then
		s = (error_names[code] or tostring(code)) ..
			(s ~= "" and ": " .. s or "")
		c.t:add_proto_expert_info(tx.error, "Error " .. s)
		info[#info + 1] = s
	end
end

-- A host's name (TSP_LOG_OPEN's, TSP_JOB_OFFER's): its length (1..64)
-- in lf and as many of [A-Za-z0-9._-], not "." first (it names a file),
-- in f: the name, or nil.
local function host_name(c, lf, f, lname, fname)
	local li, lr = field(c, lf, 2, lname)
	if not li then
		return nil
	end
	local n = lr:uint()
	if n == 0 or n > TSP_LOG_NAME_MAX then
		flag(li, tx.bad_length, string.format(
			"%d bytes; a name is 1 to %d", n, TSP_LOG_NAME_MAX))
		c.bad = true
		return nil
	end
	local r = take(c, n, fname)
	if not r then
		return nil
	end
	-- its value given: as a stringz field's it would take the byte
	-- after it too, if a NUL
	local s = r:raw()
	local item = c.t:add(f, r, r:string(ENC_ASCII))
	local at = s:find("[^A-Za-z0-9._-]") or (s:sub(1, 1) == "." and 1)
	if at then
		bad_value(item, "byte %d: not a letter, digit, '-', '_' or a "
			  .. "'.' after the first", at - 1)
	end
	return r:string(ENC_ASCII)
end

local function dissect_log_open(c, info)
	local _, rr = field(c, tf.log_run, 4, "run_id")
	local tr = ranged(c, tf.log_transport, 1, "transport", 1, 2,
			  "a log's transport")
	ranged(c, tf.reserved, 1, "reserved", 0, 0, "zero")
	local host = host_name(c, tf.log_name_len, tf.log_name, "name_len",
			       "name")
	local li, n = utf8_blob(c, tf.log_meta_len, tf.log_meta, "meta_len",
				"meta", TSP_MAX_LOG_META, "a log's metadata")
	if li and n == 0 then
		flag(li, tx.bad_length, "0 bytes: a log opens with its "
		     .. "recording's metadata")
	end
	if rr and host then
		info[#info + 1] = string.format("run %d host %s, batches over %s",
			rr:uint(), host, transport_names[tr] or "?")
	end
end

local function dissect_log_batch(c, info)
	local _, ir = field(c, tf.log_id, 4, "log_id")
	local sr = u64(c, tf.log_seq, "seq")
	local fr = u64(c, tf.log_first, "first")
	local n = ranged(c, tf.log_count, 2, "count", 1, TSP_LOG_BATCH_MAX,
			 "a batch's records")
	ranged(c, tf.reserved, 2, "reserved", 0, 0, "zero")
	if c.bad or n < 1 or n > TSP_LOG_BATCH_MAX then
		c.bad = true                -- where the records end: unknown
		return
	end
	field(c, tf.log_recs, n * TSP_LOG_REC, "records")
	if ir and sr and fr then
		info[#info + 1] = string.format("log %d batch %s: %d record%s "
			.. "from %s", ir:uint(), tostring(sr:uint64()), n,
			n == 1 and "" or "s", tostring(fr:uint64()))
	end
end

local function dissect_log(c, t, info)
	if t == 0x8b then
		dissect_log_open(c, info)
	elseif t == 0x8c then
		local id = ranged(c, tf.log_id, 4, "log_id", 1, 0xffffffff,
				  "a log id")
		local _, pr = field(c, tf.log_udp_port, 2, "udp_port")
		if id and pr then
			info[#info + 1] = string.format("log %d, %s", id,
				pr:uint() == 0 and "batches over TCP" or
				"batches to UDP port " .. pr:uint())
		end
	elseif t == 0x8d then
		dissect_log_batch(c, info)
	elseif t == 0x8e then
		local v = {}
		for _, f in ipairs({ "records", "batches", "not_sent",
				     "ring_drops", "end_ns" }) do
			v[f] = u64(c, tf["log_" .. f], f)
		end
		if v.records and v.batches and v.not_sent then
			info[#info + 1] = string.format("%s records in %s "
				.. "batches, %s not sent",
				tostring(v.records:uint64()),
				tostring(v.batches:uint64()),
				tostring(v.not_sent:uint64()))
		end
	else
		local v = {}
		for _, f in ipairs({ "records", "lost", "batches_lost",
				     "late" }) do
			v[f] = u64(c, tf["log_" .. f], f)
		end
		local file = text(c, tf.log_file, "file", TSP_MAX_TEXT, false)
		if v.records and v.lost and v.batches_lost and v.late then
			local bl = tostring(v.batches_lost:uint64())
			info[#info + 1] = string.format("%s records in %s, %s "
				.. "lost (%s batch%s), %s late",
				tostring(v.records:uint64()), file,
				tostring(v.lost:uint64()), bl,
				bl == "1" and "" or "es",
				tostring(v.late:uint64()))
		end
	end
end

local function dissect_job_progress(c, info)
	local _, rr = field(c, tf.run, 4, "run_id")
	u64(c, tf.job_elapsed_ns, "elapsed_ns")
	local n = ranged(c, tf.job_count, 2, "count", 0, TSP_JOB_ROWS,
			 "a part's rows")
	ranged(c, tf.reserved, 2, "reserved", 0, 0, "zero")
	if c.bad or not n or n > TSP_JOB_ROWS then
		c.bad = true
		return
	end
	local t = c.t
	for _ = 1, n do
		local r = take(c, TSP_JOB_ROW, "row")
		if not r then
			break
		end
		local row = t:add(tf.job_row, r)
		row:add(tf.job_row_tgid, r(0, 4))
		local si = row:add(tf.job_row_state, r(4, 1))
		if r(4, 1):uint() > 5 then
			bad_value(si, "%d is not a TG's state (0..5)",
				  r(4, 1):uint())
		end
		local ri = row:add(tf.job_row_reserved, r(5, 3))
		if r(5, 3):uint() ~= 0 then
			bad_value(ri, "not zero")
		end
		row:add(tf.job_row_sent, r(8, 8))
		row:add(tf.job_row_bytes, r(16, 8))
		row:add(tf.job_row_late, r(24, 8))
	end
	if rr then
		info[#info + 1] = string.format("run %d: %d TG%s", rr:uint(), n,
						n == 1 and "" or "s")
	end
end

local function dissect_job(c, t, rcvr, info)
	local _, rr
	if t == 0x90 then
		local run = ranged(c, tf.run, 4, "run_id", 1, 0xffffffff,
				   "a run id")
		ranged(c, tf.job_idf_len, 4, "idf_len", 1, TSP_JOB_IDF_MAX,
		       "an IDF's bytes")
		local host = host_name(c, tf.job_host_len, tf.job_host,
				       "host_len", "host")
		local file = text(c, tf.job_file, "file", TSP_MAX_TEXT, false)
		if run and host then
			info[#info + 1] = string.format("run %d host %s of %s",
				run, host, file)
		end
	elseif t == 0x91 then
		local want = rcvr and 2 or 1
		local kind = ranged(c, tf.job_kind, 1, "kind", want, want,
				    rcvr and "the summary's, a daemon's" or
				    "the IDF's, a manager's")
		ranged(c, tf.reserved, 1, "reserved", 0, 0, "zero")
		local _, or_ = field(c, tf.job_offset, 4, "offset")
		local n = ranged(c, tf.job_len, 2, "len", 1, TSP_JOB_CHUNK,
				 "a piece's bytes")
		if c.bad or not n or n < 1 or n > TSP_JOB_CHUNK then
			c.bad = true
			return
		end
		field(c, tf.job_data, n, "bytes")
		if or_ then
			info[#info + 1] = string.format("%s bytes %d..%d",
				kind_names[kind] or "?", or_:uint(),
				or_:uint() + n)
		end
	elseif t == 0x92 then
		_, rr = field(c, tf.run, 4, "run_id")
		local _, tr = field(c, tf.job_tgs, 4, "tgs")
		if rr and tr then
			info[#info + 1] = string.format("run %d ready, %d TG%s",
				rr:uint(), tr:uint(), tr:uint() == 1 and "" or
				"s")
		end
	elseif t == 0x93 then
		_, rr = field(c, tf.run, 4, "run_id")
		local si, sr = field(c, tf.start_ns, 8, "start_ns")
		if si and sr:uint64():tonumber() == 0 then
			bad_value(si, "0 is not a time (1..2^64-1)")
		end
		if rr then
			info[#info + 1] = "run " .. rr:uint()
		end
	elseif t == 0x94 then
		dissect_job_progress(c, info)
	elseif t == 0x95 then
		_, rr = field(c, tf.run, 4, "run_id")
		local _, str = field(c, tf.job_status, 1, "status")
		local fi, fr = field(c, tf.job_flags, 1, "flags")
		if fi then
			fi:add(tf.job_killed, fr)
			if bit32.band(fr:uint(), 0xfe) ~= 0 then
				bad_value(fi, "unknown flag bits")
			end
		end
		ranged(c, tf.reserved, 2, "reserved", 0, 0, "zero")
		ranged(c, tf.job_summary_len, 4, "summary_len", 0,
		       TSP_JOB_SUMMARY_MAX, "a summary's bytes")
		local why = text(c, tf.job_why, "why", TSP_MAX_TEXT, false)
		if rr and str then
			info[#info + 1] = string.format("run %d ended, exit "
				.. "status %d%s", rr:uint(), str:uint(),
				why ~= "" and ": " .. why or "")
		end
	else
		_, rr = field(c, tf.run, 4, "run_id")
		local why = text(c, tf.job_why, "why", TSP_MAX_TEXT, false)
		if rr then
			info[#info + 1] = string.format("run %d%s", rr:uint(),
				why ~= "" and ": " .. why or "")
		end
	end
end

local function dissect_mtg_body(c, t, rcvr, info)
	if t == 0x80 then
		dissect_hello(c, rcvr, info)
	elseif t == 0x81 then
		field(c, tf.nonce, 32, "nonce")
		local ms = ranged(c, tf.lifetime_ms, 4, "lifetime_ms", 1,
				  600000, "a lifetime in ms")
		if ms then
			info[#info + 1] = "lifetime " .. ms .. " ms"
		end
	elseif t == 0x82 then
		field(c, tf.nonce, 32, "nonce")
		field(c, tf.mac, 32, "mac")
	elseif t == 0x83 then
		field(c, tf.mac, 32, "mac")
	elseif t == 0x84 then
		dissect_flow_req(c, info)
	elseif t == 0x85 then
		dissect_flow_ack(c, info)
	elseif t == 0x86 then
		dissect_result(c, info)
	elseif t == 0x87 then
		dissect_error(c, info)
	elseif t == 0x88 then
		local _, rr = field(c, tf.run, 4, "run_id")
		u64(c, tf.start_ns, "start_ns")
		u64(c, tf.offset_ns, "offset_ns")
		u64(c, tf.uncertainty_ns, "uncertainty_ns")
		if rr then
			info[#info + 1] = "run " .. rr:uint()
		end
	elseif t == 0x89 then
		u64(c, tf.t1, "t1")
	elseif t == 0x8a then
		for _, f in ipairs({ "t1", "t2", "t3" }) do
			u64(c, tf[f], f)
		end
	elseif t >= 0x8b and t <= 0x8f then
		dissect_log(c, t, info)
	elseif t >= 0x90 and t <= 0x96 then
		dissect_job(c, t, rcvr, info)
	else
		take(c, c.stop - c.off, "body")
		c.t:add(tf.data, c.tvb(TSP_FRAME_HDR, c.stop - TSP_FRAME_HDR))
	end
end

-- Why an mtg frame's length cannot be its type's.
local function body_bounds(t, len)
	local b = tsp_body[t]
	if not b then
		return string.format("%d bytes: over the %d any body may have",
				     len, TSP_MAX_BODY)
	end
	if b[1] == b[2] then
		return string.format("%d bytes; %s's body is %d", len,
				     tsp_types[t], b[1])
	end
	return string.format("%d bytes; %s's body is %d to %d", len,
			     tsp_types[t], b[1], b[2])
end

-- One message, whole in tvb (framed by tsp_pdu_len), or the bytes from
-- one that cannot be framed (why: tsp_pdu_len's reason).
local function dissect_tsp_msg(tvb, tree, rcvr, info, why)
	local t = tvb(0, 1):uint()
	local tn = tsp_types[t]
	local mt = tree:add(tsp, tvb())
	local c = { tvb = tvb, off = 1, stop = tvb:len(), t = mt }
	local ti = mt:add(tf.type, tvb(0, 1))
	mt:add(tf.from, rcvr and "receiver" or "sender"):set_generated()
	local label = tn or string.format("type 0x%02x", t)
	mt:append_text(", " .. label .. (rcvr and " from the receiver" or
					 " from the sender"))
	local mine = { label }
	malformed = false
	if not tn or t == 10 or t == 20 then
		flag(ti, tx.unknown_type, not tn and
			string.format("Unknown type 0x%02x%s", t,
				      (t >= 0x80 and t <= 0xbf) and
				      ": an mtg type this dissector does "
				      .. "not know" or "") or
			(t == 10 and "TSP_CRYPTO_RSA is defined by D-ITG but "
			 .. "never sent: no layout" or
			 "TSP_SENDER_DOWN is ITGRecv's own, never on the wire"))
	elseif bit32.band(tsp_from[t], rcvr and R or S) == 0 or
	       (t == 5 and not rcvr and not tsp.prefs.ditg_passive) then
		flag(ti, tx.wrong_end, string.format(
			"%s comes from the %s, not from the %s%s", tn,
			rcvr and "sender" or "receiver",
			rcvr and "receiver" or "sender",
			t == 5 and " (outside passive mode)" or ""))
	end
	if why then
		-- the rest of the segment: what can be shown of it
		if t >= 0x80 and t <= 0xbf and tvb:len() >= TSP_FRAME_HDR then
			local mi = mt:add(tf.marker, tvb(1, 1))
			local li = mt:add(tf.len, tvb(2, 4))
			if why == "marker" then
				bad_value(mi, "0x%02x is not 'M', an mtg "
					  .. "frame's second byte",
					  tvb(1, 1):uint())
			else
				flag(li, tx.bad_length,
				     body_bounds(t, tvb(2, 4):uint()))
			end
		elseif why == "l3_proto" or why == "family" then
			flag(mt, tx.bad_value, why == "family"
				and "not an address family (2 or 10): the "
				.. "message's length is unknown" or
				"not an IP version (4 or 6): the message's "
				.. "length is unknown")
		end
		if tvb:len() > 1 then
			mt:add(tf.data, tvb(1))
		end
		mine[#mine + 1] = "[malformed, stream not followed]"
		info[#info + 1] = table.concat(mine, " ")
		return
	end
	if t < 0x80 then
		dissect_ditg(c, t, rcvr, mine)
	else
		mt:add(tf.marker, tvb(1, 1))
		local li = mt:add(tf.len, tvb(2, 4))
		local len = tvb(2, 4):uint()
		c.off = TSP_FRAME_HDR
		c.frame = true
		if not c.bad then
			dissect_mtg_body(c, t, rcvr, mine)
		end
		if not c.bad and c.off < c.stop then
			flag(li, tx.bad_length, string.format(
				"the frame's body is %d bytes, its fields "
				.. "end after %d", len, c.off - TSP_FRAME_HDR))
			mt:add(tf.trailing, tvb(c.off))
		elseif c.bad and c.off < c.stop then
			mt:add(tf.data, tvb(c.off))
		end
	end
	if malformed then
		mine[#mine + 1] = "[malformed]"
	end
	info[#info + 1] = table.concat(mine, " ")
end

function tsp.dissector(tvb, pinfo, tree)
	local cap, n = tvb:captured_len(), tvb:reported_len()
	local rcvr = from_receiver(pinfo)
	local info = {}
	local off = 0
	while off < n do
		if off >= cap then
			tree:add(tsp, tvb(off, 0)):add_proto_expert_info(tx.cut)
			break
		end
		local len, why = tsp_pdu_len(tvb, off, cap - off, rcvr)
		if len == nil and cap < n then
			tree:add(tsp, tvb(off)):add_proto_expert_info(tx.cut)
			break
		end
		if len == nil then
			-- its length is in bytes still to come
			pinfo.desegment_offset = off
			pinfo.desegment_len = DESEGMENT_ONE_MORE_SEGMENT
			break
		end
		if len == false then
			dissect_tsp_msg(tvb(off), tree, rcvr, info, why)
			off = n
			break
		end
		if off + len > n then
			pinfo.desegment_offset = off
			pinfo.desegment_len = off + len - n
			break
		end
		if off + len > cap then
			tree:add(tsp, tvb(off)):add_proto_expert_info(tx.cut)
			break
		end
		dissect_tsp_msg(tvb(off, len), tree, rcvr, info)
		off = off + len
	end
	if #info > 0 then
		-- a frame with the end of a reassembled message and the
		-- messages after it is dissected twice: the second's Info
		-- follows the first's (TCP's fence), "; " between
		local again = tostring(pinfo.cols.protocol) == "TSP"
		pinfo.cols.protocol = "TSP"
		pinfo.cols.info = (again and "; " or "") ..
			table.concat(info, "; ")
	end
	return n
end

on_ports(tsp, "tcp.port", "tcp_ports")

------------------------------------------------------------------------------
-- The log server's UDP datagrams (Documentation/tsp.rst, "The log server"):
-- a TSP_LOG_BATCH message from its client, then HMAC-SHA-256 of the
-- message under the log's key, which is not on the wire: shown, not
-- verified. Protocol "mtglog", on the UDP ports of the preference
-- mtglog.udp_ports (9001, mtgctl logd's); the message in it is an mtgtsp
-- tree, with its fields. A datagram with the MTG header's magic is left
-- to mtg.
------------------------------------------------------------------------------

local tsplog = Proto("mtglog", "mtg log datagram")

local TSP_LOG_MAC = 32

local lf = {
	mac = ProtoField.bytes("mtglog.mac",
			       "MAC (HMAC-SHA-256, the log's key)"),
}
tsplog.fields = { lf.mac }

local lx = {
	not_batch = ProtoExpert.new("mtglog.not_batch",
		"Not a TSP_LOG_BATCH and its MAC: logd refuses it",
		expert.group.MALFORMED, expert.severity.ERROR),
}
tsplog.experts = { lx.not_batch }

tsplog.prefs.udp_ports = Pref.range("UDP ports", "9001",
	"UDP ports of log servers (mtgctl logd --udp --port): each datagram "
	.. "a TSP_LOG_BATCH and its MAC", 65535)

function tsplog.dissector(tvb, pinfo, tree)
	local n = tvb:reported_len()
	if tvb:captured_len() >= 4 and tvb(0, 4):uint() == MAGIC then
		return 0        -- MTG traffic to that port: mtg's heuristic
	end
	local lt = tree:add(tsplog, tvb())
	local info = {}
	pinfo.cols.protocol = "TSP"
	local t = tvb:captured_len() > 0 and tvb(0, 1):uint()
	local len = t == 0x8d and n > TSP_LOG_MAC and
		tsp_pdu_len(tvb, 0, math.min(n, tvb:captured_len()), false)
	if not len or len ~= n - TSP_LOG_MAC then
		lt:add_proto_expert_info(lx.not_batch, t ~= 0x8d and
			"Not a TSP_LOG_BATCH and its MAC: logd refuses it" or
			string.format("%d bytes, not a TSP_LOG_BATCH's (by its "
				      .. "length) and a %d-byte MAC: logd "
				      .. "refuses it", n, TSP_LOG_MAC))
		if n > 0 then
			lt:add(tf.data, tvb())
		end
		pinfo.cols.info = "not a log batch [malformed]"
		return n
	end
	if n > tvb:captured_len() then
		lt:add_proto_expert_info(tx.cut)
		return n
	end
	dissect_tsp_msg(tvb(0, len), tree, false, info)
	lt:add(lf.mac, tvb(len, TSP_LOG_MAC))
	pinfo.cols.info = table.concat(info, "; ") .. " (datagram)"
	return n
end

on_ports(tsplog, "udp.port", "udp_ports")
