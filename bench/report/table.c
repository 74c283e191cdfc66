/* The terminal table writer: aligned columns, numbers right-aligned, then
 * the breakdown and kernel trace sections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report/internal.h"

nb_status nb_report_write_table(const nb_report *r, FILE *f)
{
    char(*cells)[NB_TEXT_COLS][200] = NULL;
    NB_TRY(nb_text_cells(r, &cells));
    nb_env_write_block(r, f, 0);
    size_t w[NB_TEXT_COLS];
    for (int k = 0; k < NB_TEXT_COLS; k++)
        w[k] = strlen(nb_text_col_names[k]);
    for (size_t i = 0; i < r->n; i++)
        for (int k = 0; k < NB_TEXT_COLS; k++)
            if (strlen(cells[i][k]) > w[k])
                w[k] = strlen(cells[i][k]);
    for (int k = 0; k < NB_TEXT_COLS; k++)
        fprintf(f, nb_text_col_numeric(k) ? "%*s  " : "%-*s  ", (int)w[k], nb_text_col_names[k]);
    fputc('\n', f);
    for (size_t i = 0; i < r->n; i++) {
        for (int k = 0; k < NB_TEXT_COLS; k++)
            fprintf(f, nb_text_col_numeric(k) ? "%*s  " : "%-*s  ", (int)w[k], cells[i][k]);
        fputc('\n', f);
    }
    free(cells);
    nb_text_write_stage_ntt(r, f, 0);
    nb_text_write_word_pairs(r, f, 0);
    nb_text_write_breakdowns(r, f, 0);
    nb_text_write_traces(r, f, 0);
    nb_text_write_bounds(r, f, 0);
    nb_text_write_overhead(r, f, 0);
    nb_report_write_completion(r, f, 0);
    return NB_OK;
}
