/*
 * probe.h: building the small cases a diagnosis asks the implementation.  A probe is the
 * failing case's operator, types, feature level, parameters and rank (or what a cause's
 * shape hook makes of them), shrunk to a few hundred elements, laid out as the cause asks,
 * with values its fill hook draws from a seeded PRNG: the same failing case and seed give
 * the same probes on any machine.
 */
#ifndef DMLCHECK_DIAGNOSE_PROBE_H
#define DMLCHECK_DIAGNOSE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "cause.h"
#include "error.h"
#include "prng.h"

/* Input elements of a probe unless its cause says otherwise: small enough that every
 * hypothesis's scan of it is instant, large enough for several windows or rows. */
#define PROBE_ELEMENTS 256

/* The probe of cause h derived from failing (shape, layout, indices; input buffer allocated
 * and zeroed, not filled).  False when h can build no valid probe from this case. */
bool probe_shape(const dml_case *failing, const cause *h, dml_case *probe, dmlc_error *err);

/* Sets the input's sizes (same rank), recomputes the output and indices sizes (floor, D8),
 * packed, and validates.  For shape hooks. */
bool probe_resize(dml_case *probe, const UINT *sizes);

/* The bits of v in type t: floats rounded to the type (infinities kept), integers rounded
 * and clamped to the type's range (-inf the minimum, +inf the maximum). */
uint64_t probe_value_bits(DML_TENSOR_DATA_TYPE t, double v);
/* The sign that makes "larger is better" true for the probe's operator: -1 for ARGMIN. */
double probe_orientation(const dml_case *probe);
/* Every element of the input buffer (gaps included) drawn from a prefix pool[0..k) of the
 * pool, k from 1 to n drawn per probe, so large windows and long rows also meet probes where
 * the first values alone decide: list the values a cause plants first.  On ARGMIN/ARGMAX
 * each row then draws its own k, so one probe holds rows of different values.  Each value is
 * multiplied by probe_orientation, so one pool written for a maximum serves ARGMIN mirrored. */
void probe_fill_pool(prng *p, dml_case *probe, const double *pool, size_t n);
/* As probe_fill_pool, the values taken as they are (not mirrored for ARGMIN): for pools whose
 * values stand on both sides of what a cause confuses (unsigned types, whose mirror is 0). */
void probe_fill_values(prng *p, dml_case *probe, const double *pool, size_t n);
/* Every element of the buffer a different value, shuffled: no ties, so only geometry
 * decides.  A buffer larger than the integers its type holds exactly repeats them evenly
 * (an INT8 probe of 630 elements holds each value two or three times, not 127 two hundred
 * times). */
void probe_fill_distinct(prng *p, dml_case *probe);
/* Writes v (oriented like the pools) at logical input element `logical`. */
void probe_plant(dml_case *probe, uint64_t logical, double v);

#endif
