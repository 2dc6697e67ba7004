/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TSP on the wire (Documentation/tsp.rst): D-ITG 2.8.1's signalling
 * messages, types 1..22 with their real layouts and byte orders, and
 * mtg's own messages (types 0x80..0x8f: hello, authentication, flows with
 * the TG's description, results, errors, clocks, and the log server's
 * logs), each framed with a length.
 * Encoded and decoded here, a stream decoder for bytes as TCP gives them;
 * no sockets, no session policy.
 */
#ifndef MTGCTL_TSP_WIRE_H
#define MTGCTL_TSP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* D-ITG 2.8.1's type byte (common/ITG.h) */
enum tsp_type {
	TSP_CONNECT = 1,
	TSP_ACK_CONNECT = 2,
	TSP_SEND_FLOW = 3,
	TSP_CLOSED_FLOW = 4,
	TSP_ACK_SEND_FLOW = 5,
	TSP_ACK_CLOSED_FLOW = 6,
	TSP_ACK_RELEASE = 7,
	TSP_DISCOVERY = 8,
	TSP_ACK_DISCOVERY = 9,
	TSP_CRYPTO_RSA = 10,		/* defined, never sent: no wire form */
	TSP_RELEASE = 11,
	TSP_SEND_FLOW_LOG = 12,
	TSP_ACK_SEND_FLOW_LOG = 13,
	TSP_ERR_MSG_1 = 14,
	TSP_ERR_MSG_2 = 15,
	TSP_ERR_MSG_3 = 16,
	TSP_CLOSED_ERR = 17,
	TSP_ACK_SEND_NAME_LOG = 18,
	TSP_SEND_NAME_LOG = 19,
	TSP_SENDER_DOWN = 20,		/* ITGRecv's own, never on the wire */
	TSP_ERR_MSG_4 = 21,
	TSP_ERR_MSG_5 = 22,
	TSP_DITG_LAST = 22,

	/* mtg's: framed (TSP_FRAME_HDR), 0x80..0xbf kept for mtg */
	TSP_HELLO = 0x80,
	TSP_CHALLENGE = 0x81,
	TSP_AUTH = 0x82,
	TSP_AUTH_OK = 0x83,
	TSP_FLOW_REQ = 0x84,
	TSP_FLOW_ACK = 0x85,
	TSP_RESULT = 0x86,
	TSP_ERROR = 0x87,
	TSP_START = 0x88,
	TSP_TIME_REQ = 0x89,
	TSP_TIME_RESP = 0x8a,
	/* the log server (mtgctl logd): a client's log */
	TSP_LOG_OPEN = 0x8b,
	TSP_LOG_ACK = 0x8c,
	TSP_LOG_BATCH = 0x8d,
	TSP_LOG_CLOSE = 0x8e,
	TSP_LOG_DONE = 0x8f,
	/* the manager and its daemons (mtgctl manage, mtgctl daemon) */
	TSP_JOB_OFFER = 0x90,
	TSP_JOB_DATA = 0x91,
	TSP_JOB_READY = 0x92,
	TSP_JOB_START = 0x93,
	TSP_JOB_PROGRESS = 0x94,
	TSP_JOB_END = 0x95,
	TSP_JOB_DROP = 0x96,
	TSP_MTG_LAST = 0x96,
	TSP_MTG_FIRST = 0x80,
	TSP_MTG_RESERVED_END = 0xbf,
};

/* D-ITG's values (common/ITG.h) */
#define TSP_L4_TCP	1
#define TSP_L4_UDP	2
#define TSP_L4_ICMP	3
#define TSP_L4_SCTP	4
#define TSP_L4_DCCP	5
#define TSP_L3_IPV4	4
#define TSP_L3_IPV6	6
#define TSP_L7_MAX	7	/* none, Telnet, VoIP, DNS, AoM, CSa, CSi, Quake3 */
#define TSP_METER_OWDM	1
#define TSP_METER_RTTM	2
#define TSP_PL_MAX	2	/* standard, short, none */
#define TSP_SERIAL_LEN	10	/* DIM_NAME_SERIAL_INTERFACE */
#define TSP_LOG_NAME_LEN 200	/* DIM_LOG_FILE */
#define TSP_AF_INET	2	/* TSP_SEND_FLOW_LOG's family, Linux's */
#define TSP_AF_INET6	10
#define TSP_SRC_SPECIFIED 0xff	/* passive mode: -sa given */

/* mtg's frame: type, 'M', body length (u32 BE), body */
#define TSP_FRAME_HDR	6
#define TSP_MARKER	0x4d
#define TSP_VERSION_MAJOR 1
#define TSP_VERSION_MINOR 0
#define TSP_NONCE_LEN	32
#define TSP_MAC_LEN	32	/* HMAC-SHA-256 */
#define TSP_MAX_TEXT	256	/* reasons and error texts, bytes */
#define TSP_MAX_TG_JSON	65536	/* a flow request's TG description, bytes */
#define TSP_LOG_NAME_MAX 64	/* a log's host name, bytes */
#define TSP_MAX_LOG_META 65536	/* a log's recording metadata, bytes */
#define TSP_LOG_REC	96	/* a record in a batch: the recording's */
#define TSP_LOG_BATCH_MAX 512	/* records in a batch */
#define TSP_LOG_UDP_MAX	14	/* records in a datagram: 1406 bytes */
#define TSP_LOG_TCP	1	/* a log's transport: D-ITG's numbers */
#define TSP_LOG_UDP	2
#define TSP_LOG_OPEN_MAX (12 + TSP_LOG_NAME_MAX + TSP_MAX_LOG_META)
#define TSP_JOB_IDF_MAX	(16U << 20)	/* a part's IDF text, bytes */
#define TSP_JOB_SUMMARY_MAX (64U << 20)	/* a part's summary, bytes */
#define TSP_JOB_CHUNK	16384	/* bytes of a TSP_JOB_DATA */
#define TSP_JOB_ROWS	256	/* TGs of a TSP_JOB_PROGRESS */
#define TSP_JOB_ROW	32	/* bytes of a row */
#define TSP_JOB_IDF	1	/* TSP_JOB_DATA's kinds: the manager's IDF */
#define TSP_JOB_SUMMARY	2	/* the daemon's summary */
#define TSP_JOB_KILLED	0x1	/* TSP_JOB_END: the daemon ended the run */
#define TSP_JOB_FLAGS	0x1
#define TSP_MAX_MSG	(TSP_FRAME_HDR + TSP_LOG_OPEN_MAX)

/* which end sent the bytes a decoder reads */
enum tsp_dir { TSP_FROM_SENDER, TSP_FROM_RECEIVER };

struct tsp_cfg {
	enum tsp_dir from;
	bool passive;		/* D-ITG's passive mode (-H): two layouts change */
};

/* TSP_SEND_FLOW (3) */
struct tsp_send_flow {
	uint8_t l4, l7, meter, ds, l3, pl_type;
	uint8_t serial[TSP_SERIAL_LEN];	/* "noSerial\0\0" by default */
	uint16_t pssv_port;		/* passive only: the sender's data port */
	uint8_t src_specified;		/* passive only: 0 or 0xff */
	uint16_t port;			/* data destination port (LE on the wire) */
	uint8_t addr[16];		/* network order; 4 bytes for IPv4 */
};

/* TSP_SEND_FLOW_LOG (12) */
struct tsp_flow_log {
	uint32_t family;		/* TSP_AF_INET or TSP_AF_INET6 */
	uint8_t addr[16];
	uint16_t port;			/* ignored by ITGRecv */
	uint8_t proto;			/* TSP_L4_TCP or TSP_L4_UDP */
	uint8_t name[TSP_LOG_NAME_LEN];
};

/* mtg: TSP_HELLO, both ways: the highest version a sender speaks; the
 * version a receiver chose */
struct tsp_hello {
	uint16_t major, minor;		/* 0..999 each */
};

struct tsp_challenge {
	uint8_t nonce[TSP_NONCE_LEN];
	uint32_t lifetime_ms;		/* how long the receiver waits for AUTH */
};

struct tsp_auth {
	uint8_t nonce[TSP_NONCE_LEN];
	uint8_t mac[TSP_MAC_LEN];
};

/* mtg: TSP_FLOW_REQ, the flow a sender asks the receiver to take */
struct tsp_flow_req {
	uint32_t run_id;
	uint8_t l4, l3;			/* D-ITG's numbers */
	uint16_t port, src_port;
	uint8_t addr[16];		/* destination, network order */
	uint64_t bit_rate;		/* bits/s, the TG's mean */
	uint64_t pkt_rate_milli;	/* packets per 1000 s */
	uint64_t duration_ns;		/* 0: until closed */
	uint32_t tg_json_len;
	char *tg_json;			/* malloc'd, NUL-terminated, owned */
};

/* mtg: TSP_FLOW_ACK's codes (0: accepted) */
enum tsp_refusal {
	TSP_ACCEPTED = 0,
	TSP_REFUSE_ADDR = 1,		/* address not one the receiver offers */
	TSP_REFUSE_PORT = 2,		/* port not allowed */
	TSP_REFUSE_RATE = 3,		/* above the receiver's largest rate */
	TSP_REFUSE_PROTO = 4,		/* protocol the receiver does not take */
	TSP_REFUSE_BUSY = 5,		/* too many flows */
	TSP_REFUSE_FLOW_ID = 6,		/* flow id already in use */
	TSP_REFUSE_AUTH = 7,		/* not authenticated */
	TSP_REFUSE_BIND = 8,		/* the receive path could not be opened */
	TSP_REFUSE_TG = 9,		/* the TG's description is not usable */
	TSP_REFUSE_LAST = 9,
};

struct tsp_text {
	uint16_t len;
	char s[TSP_MAX_TEXT + 1];	/* NUL-terminated */
};

struct tsp_flow_ack {
	uint16_t code;			/* enum tsp_refusal */
	uint16_t port;			/* the port bound, 0 if refused */
	struct tsp_text reason;
};

#define TSP_RESULT_INCOMPLETE	0x1	/* ended before the sender closed it */
#define TSP_RESULT_NO_OWD	0x2	/* no one-way delay (no common clock) */
#define TSP_RESULT_FLAGS	0x3

struct tsp_result {
	uint32_t flags;
	uint64_t received, lost, duplicates, reordered, bytes;
	int64_t owd_min_ns, owd_mean_ns, owd_max_ns;
	uint64_t jitter_ns;
	uint64_t first_rx_ns, last_rx_ns;	/* CLOCK_TAI */
};

/* mtg: TSP_ERROR's codes */
enum tsp_error_code {
	TSP_ERR_VERSION = 1,		/* no common major version */
	TSP_ERR_AUTH_FAILED = 2,	/* wrong proof (wrong key) */
	TSP_ERR_AUTH_REPLAY = 3,	/* a nonce seen before */
	TSP_ERR_AUTH_EXPIRED = 4,	/* the challenge's lifetime passed */
	TSP_ERR_AUTH_REQUIRED = 5,	/* a request before authentication */
	TSP_ERR_MALFORMED = 6,		/* the decoder's error, in the text */
	TSP_ERR_UNEXPECTED = 7,		/* a message out of order */
	TSP_ERR_INTERNAL = 8,		/* the peer failed on its side */
	TSP_ERR_REFUSED = 9,		/* a log refused, the text says why */
	TSP_ERR_LAST = 9,
};

struct tsp_error {
	uint16_t code;			/* enum tsp_error_code */
	uint8_t about;			/* type of the message it answers, or 0 */
	struct tsp_text text;
};

/*
 * mtg: TSP_START, the run's flows requested so far start at start_ns;
 * with the sender's estimate of the receiver's clock (uncertainty 0:
 * none)
 */
struct tsp_start {
	uint32_t run_id;
	uint64_t start_ns;		/* T0, CLOCK_TAI */
	int64_t offset_ns;		/* receiver's CLOCK_TAI - sender's */
	uint64_t uncertainty_ns;	/* the true offset is within +- this */
};

/* mtg: TSP_TIME_REQ and _RESP, an NTP-style exchange (CLOCK_TAI) */
struct tsp_time {
	uint64_t t1;			/* the sender's, when it asked */
	uint64_t t2, t3;		/* RESP: the receiver's, in and out */
};

/* mtg: TSP_LOG_OPEN, a client's log: one a connection */
struct tsp_log_open {
	uint32_t run_id;		/* 0: every run (listen without --run-id) */
	uint8_t transport;		/* TSP_LOG_TCP or TSP_LOG_UDP */
	uint16_t name_len;
	char name[TSP_LOG_NAME_MAX + 1];	/* [A-Za-z0-9._-], not "." first */
	uint32_t meta_len;
	char *meta;			/* malloc'd, NUL-terminated, owned */
};

/* mtg: TSP_LOG_ACK, the log taken */
struct tsp_log_ack {
	uint32_t log_id;		/* the log's id at the server, not 0 */
	uint16_t udp_port;		/* UDP: where the batches go; TCP: 0 */
};

/*
 * mtg: TSP_LOG_BATCH, records of a log: over TCP a message; over UDP a
 * datagram, the message and its MAC (tsp_log_mac)
 */
struct tsp_log_batch {
	uint32_t log_id;
	uint64_t seq;			/* the batch's number, from 0 */
	uint64_t first;			/* its first record's, from 0 */
	uint16_t count;			/* 1..TSP_LOG_BATCH_MAX */
	uint8_t *recs;			/* count records as the recording has them
					 * (little-endian); decoded: malloc'd,
					 * owned */
};

/* mtg: TSP_LOG_CLOSE, the client's last word; TSP_LOG_DONE, the server's */
struct tsp_log_close {
	uint64_t records;		/* put in batches */
	uint64_t batches;
	uint64_t not_sent;		/* records taken but never sent */
	uint64_t ring_drops;		/* its recording header's */
	uint64_t end_ns;		/* its end, CLOCK_TAI */
};

struct tsp_log_done {
	uint64_t records;		/* in the server's file */
	uint64_t lost;			/* sent, never arrived */
	uint64_t batches_lost;
	uint64_t late;			/* UDP: datagrams older than one taken */
	struct tsp_text file;		/* the file's name in the server's DIR */
};

/*
 * mtg: TSP_JOB_OFFER, a manager's part for a daemon: host's TGs of the
 * file (its text follows in TSP_JOB_DATA), to run as run_id
 */
struct tsp_job_offer {
	uint32_t run_id;		/* not 0 */
	uint32_t idf_len;		/* 1..TSP_JOB_IDF_MAX */
	uint16_t host_len;
	char host[TSP_LOG_NAME_MAX + 1];	/* as a log's name */
	struct tsp_text file;		/* the file's name, for messages */
};

/* mtg: TSP_JOB_DATA, a piece of the IDF or of the summary */
struct tsp_job_data {
	uint8_t kind;			/* TSP_JOB_IDF (manager), _SUMMARY */
	uint32_t offset;		/* of its first byte in the whole */
	uint16_t len;			/* 1..TSP_JOB_CHUNK */
	uint8_t *bytes;			/* decoded: malloc'd, owned */
};

/* mtg: TSP_JOB_READY (the part prepared), TSP_JOB_START (T0) */
struct tsp_job_ready {
	uint32_t run_id;
	uint32_t tgs;			/* the host's TGs */
};

struct tsp_job_start {
	uint32_t run_id;
	uint64_t start_ns;		/* T0, CLOCK_TAI */
};

/* a TG's row of TSP_JOB_PROGRESS: its state (TSP_JOB_STATE_*) */
enum tsp_job_state {
	TSP_JOB_WAITING, TSP_JOB_RUNNING, TSP_JOB_SUSPENDED, TSP_JOB_DONE,
	TSP_JOB_STOPPED, TSP_JOB_ERROR, TSP_JOB_STATE_LAST = TSP_JOB_ERROR,
};

struct tsp_job_row {
	uint32_t tgid;
	uint8_t state;			/* enum tsp_job_state */
	uint64_t sent, bytes;
	uint64_t late_p99_ns;		/* UINT64_MAX: not known */
};

struct tsp_job_progress {
	uint32_t run_id;
	uint64_t elapsed_ns;		/* since T0 */
	uint16_t count;			/* 0..TSP_JOB_ROWS */
	struct tsp_job_row *rows;	/* decoded: malloc'd, owned */
};

/* mtg: TSP_JOB_END, the part's end: its run's exit status and summary */
struct tsp_job_end {
	uint32_t run_id;
	uint8_t status;			/* mtgctl run's exit status */
	uint8_t flags;			/* TSP_JOB_KILLED */
	uint32_t summary_len;		/* the TSP_JOB_DATA before it; 0: none */
	struct tsp_text why;		/* "" when it ended as it should */
};

/* mtg: TSP_JOB_DROP, the manager's: drop the part, or stop its run */
struct tsp_job_drop {
	uint32_t run_id;
	struct tsp_text why;
};

struct tsp_msg {
	uint8_t type;
	bool passive;		/* 3 from a passive sender; 5 from a sender */
	uint32_t flow_id;	/* 3..6, 15..17, 22, FLOW_REQ/ACK, RESULT */
	uint16_t port;		/* 5 from the receiver: the port bound (BE) */
	union {
		struct tsp_send_flow flow;
		struct tsp_flow_log log;
		uint8_t log_name[TSP_LOG_NAME_LEN];	/* 19 */
		struct tsp_hello hello;
		struct tsp_challenge challenge;
		struct tsp_auth auth;
		uint8_t auth_ok[TSP_MAC_LEN];
		struct tsp_flow_req req;
		struct tsp_flow_ack ack;
		struct tsp_result result;
		struct tsp_error error;
		struct tsp_start start;
		struct tsp_time time;
		struct tsp_log_open lopen;
		struct tsp_log_ack lack;
		struct tsp_log_batch batch;
		struct tsp_log_close lclose;
		struct tsp_log_done ldone;
		struct tsp_job_offer offer;
		struct tsp_job_data jdata;
		struct tsp_job_ready ready;
		struct tsp_job_start jstart;
		struct tsp_job_progress prog;
		struct tsp_job_end jend;
		struct tsp_job_drop drop;
	} u;
};

/* the decoder's errors */
enum tsp_ecode {
	TSP_E_NONE,
	TSP_E_TRUNCATED,	/* input or frame ended inside a field */
	TSP_E_LENGTH,		/* a length absurd or not the layout's */
	TSP_E_TYPE,		/* unknown type, or not from this end */
	TSP_E_RANGE,		/* a value outside its field's range */
};

struct tsp_err {
	enum tsp_ecode code;
	uint8_t type;		/* the message's type byte */
	bool have_type;
	const char *field;	/* the field's name */
	uint64_t msg_offset;	/* the message's first byte in the stream */
	uint64_t offset;	/* the field's first byte in the stream */
	char what[192];
};

/* what the first byte a sender sends says its peer speaks */
enum tsp_peer { TSP_PEER_UNKNOWN, TSP_PEER_DITG, TSP_PEER_MTG };

enum tsp_peer tsp_peer_kind(uint8_t first);
/* "TSP_SEND_FLOW", "TSP_HELLO"; NULL for a byte no message has */
const char *tsp_type_name(uint8_t type);
const char *tsp_ecode_name(enum tsp_ecode code);
const char *tsp_refusal_name(uint16_t code);	/* NULL if unknown */
const char *tsp_error_name(uint16_t code);	/* NULL if unknown */
/* "running", as the stream's rows say it; a state of it (-1: none) */
const char *tsp_job_state_name(uint8_t state);
int tsp_job_state_code(const char *name);
/* One line: message, byte, field, what. */
void tsp_err_str(const struct tsp_err *e, char *buf, size_t size);

/* Frees a decoded message's owned parts (FLOW_REQ's TG JSON, a log's
 * metadata and records). */
void tsp_msg_free(struct tsp_msg *m);
/* A reason or error text from s (cut to TSP_MAX_TEXT at a character). */
void tsp_text_set(struct tsp_text *t, const char *s);

/*
 * The bytes m takes on the wire, or 0 (with *e saying which field) if a
 * value is out of range: what the encoder refuses, the decoder refuses.
 */
size_t tsp_encoded_len(const struct tsp_msg *m, enum tsp_dir from,
		       struct tsp_err *e);
/* m into buf (size bytes): its length, or 0 with *e. */
size_t tsp_encode(const struct tsp_msg *m, enum tsp_dir from, uint8_t *buf,
		  size_t size, struct tsp_err *e);

enum tsp_res { TSP_MSG, TSP_MORE, TSP_BAD };

/*
 * The message at p[0..n), the stream's byte base onwards. TSP_MSG: *m
 * (free it with tsp_msg_free) and *used, its length. TSP_MORE: p holds
 * only its beginning (at_end: the input ends there, which is
 * TSP_E_TRUNCATED instead). TSP_BAD: *e. Never reads p[n] or beyond; a
 * length is checked against its maximum before anything is allocated.
 */
enum tsp_res tsp_decode(const struct tsp_cfg *c, const uint8_t *p, size_t n,
			uint64_t base, bool at_end, struct tsp_msg *m,
			size_t *used, struct tsp_err *e);

/* Bytes as TCP gives them, in any split. */
struct tsp_stream {
	struct tsp_cfg cfg;
	uint8_t *buf;		/* the message being gathered */
	size_t len, cap;
	uint64_t pos;		/* stream offset of buf[0] */
	bool failed;
	struct tsp_err err;	/* why, once failed */
};

void tsp_stream_init(struct tsp_stream *s, const struct tsp_cfg *c);
void tsp_stream_free(struct tsp_stream *s);
/*
 * Takes bytes of p[0..n) until a message is whole; returns how many it
 * took. *res: TSP_MSG (*m is the message: feed the rest after it),
 * TSP_MORE (all taken, none whole yet) or TSP_BAD (*e; the stream is
 * dead). It holds no more of a message than its checked length.
 */
size_t tsp_stream_feed(struct tsp_stream *s, const uint8_t *p, size_t n,
		       struct tsp_msg *m, enum tsp_res *res, struct tsp_err *e);
/* The input ended: 0, or -1 with *e if it ended inside a message. */
int tsp_stream_end(struct tsp_stream *s, struct tsp_err *e);

#endif /* MTGCTL_TSP_WIRE_H */
