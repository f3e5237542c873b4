/** Attachments in the inbox (components/inbox/Attachment.tsx): sending a file from the composer, downloading a message's. */
export const ptBR = {
  attach: 'Anexar',
  attachFile: 'Anexar arquivo',
  attachHint: 'Imagem, áudio, vídeo, PDF, texto ou documento do Office; até 50 MB.',
  chosen: 'Arquivo escolhido',
  removeFile: 'Remover anexo',
  caption: 'Legenda (opcional)',
  download: 'Baixar',
  downloadName: 'Baixar {name}',
  downloadFailed: 'Não foi possível baixar {name}: {reason}',
  kind_image: 'Imagem',
  kind_audio: 'Áudio',
  kind_video: 'Vídeo',
  kind_document: 'Documento',
  errType:
    'O WhatsApp não aceita este tipo de arquivo ({type}). Envie uma imagem JPEG ou PNG, um áudio, um vídeo MP4 ou 3GP, um PDF, um texto ou um documento do Office.',
  errUnknownType: 'desconhecido',
  errSize: 'O arquivo tem {size}: o WhatsApp aceita arquivos de {kind} de até {max}.',
  errEmpty: 'O arquivo está vazio.',
  errProvider: 'O WhatsApp recusou o arquivo (código {code}).',
};

export const en: typeof ptBR = {
  attach: 'Attach',
  attachFile: 'Attach a file',
  attachHint: 'An image, audio, video, PDF, text or Office document; up to 50 MB.',
  chosen: 'Chosen file',
  removeFile: 'Remove attachment',
  caption: 'Caption (optional)',
  download: 'Download',
  downloadName: 'Download {name}',
  downloadFailed: 'Could not download {name}: {reason}',
  kind_image: 'Image',
  kind_audio: 'Audio',
  kind_video: 'Video',
  kind_document: 'Document',
  errType:
    'WhatsApp does not accept this type of file ({type}). Send a JPEG or PNG image, an audio file, an MP4 or 3GP video, a PDF, a text file or an Office document.',
  errUnknownType: 'unknown',
  errSize: 'The file is {size}: WhatsApp accepts {kind} files of up to {max}.',
  errEmpty: 'The file is empty.',
  errProvider: 'WhatsApp refused the file (code {code}): {message}',
};
