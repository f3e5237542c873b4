/** A card's file fields (components/FieldInput.tsx, lib/board-files.ts): the files listed, each downloadable. */
export const ptBR = {
  files: 'Arquivos de {field}',
  download: 'Baixar',
  downloadName: 'Baixar {name}',
  downloadFailed: 'Não foi possível baixar {name}: {reason}',
};

export const en: typeof ptBR = {
  files: 'Files of {field}',
  download: 'Download',
  downloadName: 'Download {name}',
  downloadFailed: 'Could not download {name}: {reason}',
};
