/* The markdown writer: a GitHub table (numbers right-aligned), then the
 * breakdown and kernel trace sections as markdown tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report/internal.h"

/* One cell: a '|' would end it early, so it is written escaped. */
static void md_cell(FILE *f, const char *s)
{
    fputc(' ', f);
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputs(" |", f);
}

nb_status nb_report_write_markdown(const nb_report *r, FILE *f)
{
    char(*cells)[NB_TEXT_COLS][200] = NULL;
    NB_TRY(nb_text_cells(r, &cells));
    nb_env_write_block(r, f, 1);
    fputs("|", f);
    for (int k = 0; k < NB_TEXT_COLS; k++)
        fprintf(f, " %s |", nb_text_col_names[k]);
    fputs("\n|", f);
    for (int k = 0; k < NB_TEXT_COLS; k++)
        fputs(nb_text_col_numeric(k) ? " ---: |" : " --- |", f);
    fputc('\n', f);
    for (size_t i = 0; i < r->n; i++) {
        fputs("|", f);
        for (int k = 0; k < NB_TEXT_COLS; k++)
            md_cell(f, cells[i][k]);
        fputc('\n', f);
    }
    free(cells);
    nb_text_write_stage_ntt(r, f, 1);
    nb_text_write_word_pairs(r, f, 1);
    nb_text_write_breakdowns(r, f, 1);
    nb_text_write_traces(r, f, 1);
    nb_text_write_bounds(r, f, 1);
    nb_text_write_overhead(r, f, 1);
    nb_report_write_completion(r, f, 1);
    return NB_OK;
}
