// The report: Markdown lines printed as the run goes and kept for the end.
import { writeFileSync } from 'node:fs';

export class Report {
  readonly lines: string[] = [];

  line(text = '') {
    this.lines.push(text);
    console.log(text);
  }

  table(header: string[], rows: (string | number)[][]) {
    this.line(`| ${header.join(' | ')} |`);
    this.line(`|${header.map(() => '---').join('|')}|`);
    for (const row of rows) this.line(`| ${row.join(' | ')} |`);
  }

  code(lines: string[], language = '') {
    this.line(`${'```'}${language}`);
    for (const line of lines) this.line(line);
    this.line('```');
  }

  save(file: string) {
    writeFileSync(file, `${this.lines.join('\n')}\n`);
  }
}

export const ms = (value: number) =>
  Number.isFinite(value) ? `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms` : '–';
export const rps = (value: number) => `${value.toFixed(value < 100 ? 1 : 0)}`;
export const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');
export const mib = (value: number) => `${value.toFixed(0)} MiB`;
export const verdict = (met: boolean) => (met ? '**met**' : '**not met**');
