// SPDX-License-Identifier: GPL-2.0-or-later
/* Values derived from a TG as written: seeds, ports, header bytes (idf.h). */
#include <sys/socket.h>

#include "idf/idf.h"
#include "traffic/draw.h"
#include "traffic/lehmer.h"

void idf_nut(const struct idf_tg *tg, uint8_t nut[6])
{
	uint64_t q = tg->qlen < 0xffff ? tg->qlen : 0xffff;
	uint64_t k = idf_has(tg, IDF_KW_rpol) ? idf_rpol_request(tg) / 1000 : 0;

	if (k > 0xffffffff)
		k = 0xffffffff;
	nut[0] = (uint8_t)(q >> 8);
	nut[1] = (uint8_t)q;
	nut[2] = (uint8_t)(k >> 24);
	nut[3] = (uint8_t)(k >> 16);
	nut[4] = (uint8_t)(k >> 8);
	nut[5] = (uint8_t)k;
}

uint64_t idf_rpol_request(const struct idf_tg *tg)
{
	uint64_t lo = tg->thro_min ? tg->thro_min : tg->thro_req;

	return lo + (tg->thro_req - lo) * tg->rpol / 100;
}

uint32_t idf_seed(const struct idf_tg *tg)
{
	if (idf_has(tg, IDF_KW_seed))
		return tg->seed;
	return (tg->id - 1) % LEHMER_SEED_MAX + 1;
}

int idf_samplers(const struct idf_tg *tg)
{
	return idf_has(tg, IDF_KW_samplers) ? tg->samplers : SAMPLERS_LATEST;
}

uint32_t idf_patt_seed(const struct idf_tg *tg)
{
	struct lehmer g;

	lehmer_init(&g, idf_seed(tg));
	return lehmer_next(&g);
}

uint32_t idf_l4_over(const struct idf_tg *tg)
{
	return tg->dst.family == AF_INET6 ? IDF_L4_OVER_IPV6 : IDF_L4_OVER_IPV4;
}

uint32_t idf_min_len(const struct idf_tg *tg)
{
	return idf_l4_over(tg) + (tg->header == IDF_HEADER_DITG ?
				  IDF_DITG_HDR : IDF_MTG_HDR);
}

uint16_t idf_src_port(const struct idf_tg *tg)
{
	if (tg->src.port)
		return tg->src.port;
	return IDF_SRC_PORT_BASE + tg->id % (65536 - IDF_SRC_PORT_BASE);
}
